// A policy question: the knowledge engine's grounded answer (with the thread's previous question
// for follow-ups), framed in the thread's language. An answer leads with the value asked for when
// the engine found one (a duration, deadline or amount quoted from the cited sentence); a conflict
// or missing evidence hands off to the store's team (or, without a support contact, says so), as
// does a request for a person (handoffTurn).
import { composeAnswer, contactAction, contactLine } from "../answers/compose.js";
import { T } from "../answers/i18n.js";
import type { Limitation } from "../answers/schemas.js";
import { EVENT, type TurnReply, type TurnTools } from "./tools.js";

export async function policyTurn(t: TurnTools): Promise<TurnReply> {
  const { session } = t.handle;
  const { result, versions } = await t.policyAnswer();
  await t.emit(EVENT.retrievalCompleted, {
    result: result.kind,
    citations: result.kind === "no_evidence" ? [] : result.citations,
    ...(result.kind === "answer" && result.confidence ? { confidence: result.confidence } : {}),
    ...(result.kind === "no_evidence" && result.abstained ? { abstained: result.abstained } : {}),
    policies: versions.policies,
    index_built_at: versions.index_built_at,
  });
  const base = { policies: versions.policies, policy_index_built_at: versions.index_built_at };
  const now = t.now();
  if (result.kind === "answer") {
    const parts = [
      result.direct && result.phrased_by === "extractive" ? `**${result.direct}**` : null,
      result.markdown,
      result.unanswered?.length ? T(t.lang).unansweredParts(result.unanswered) : null,
    ];
    return {
      outcome: "answer",
      answer: composeAnswer(
        { ...base, answer_status: "answered", response_markdown: parts.filter(Boolean).join("\n\n"), citations: result.citations },
        now,
      ),
    };
  }
  const { support_contact: contact } = await t.settings.get(session.storeId);
  const line = contactLine(contact, t.lang);
  if (result.kind === "conflict") {
    const limitations: Limitation[] = line
      ? []
      : [{ code: "no_support_contact", message: "The store has not configured a support contact." }];
    return {
      outcome: "handoff",
      answer: composeAnswer(
        {
          ...base,
          answer_status: "handed_off",
          response_markdown: [result.markdown, line ?? T(t.lang).noContactForConflict].join("\n\n"),
          citations: result.citations,
          conflicts: result.conflicts,
          limitations,
          handoff: { reason: "policy_conflict", support_contact: contact },
          next_actions: line ? [contactAction()] : [],
        },
        now,
      ),
    };
  }
  const noEvidence = result.markdown.trim() || T(t.lang).noEvidence;
  if (line) {
    return {
      outcome: "handoff",
      answer: composeAnswer(
        {
          ...base,
          answer_status: "handed_off",
          response_markdown: `${noEvidence}\n\n${line}`,
          limitations: [{ code: "no_evidence", message: "No published policy of the store covers this question." }],
          handoff: { reason: "no_evidence", support_contact: contact },
          next_actions: [contactAction()],
        },
        now,
      ),
    };
  }
  return {
    outcome: "answer",
    answer: composeAnswer(
      {
        ...base,
        answer_status: "limited",
        response_markdown: noEvidence,
        limitations: [
          { code: "no_evidence", message: "No published policy of the store covers this question." },
          { code: "no_support_contact", message: "The store has not configured a support contact to hand over to." },
        ],
      },
      now,
    ),
  };
}

/**
 * The shopper asked for a person (router rule 1b): a handoff with the store's support contact,
 * whatever the question; without a configured contact, a limited answer that says so.
 */
export async function handoffTurn(t: TurnTools): Promise<TurnReply> {
  const { support_contact: contact } = await t.settings.get(t.handle.session.storeId);
  const line = contactLine(contact, t.lang);
  const now = t.now();
  if (!line) {
    return {
      outcome: "answer",
      answer: composeAnswer(
        {
          answer_status: "limited",
          response_markdown: T(t.lang).noContactForPerson,
          limitations: [{ code: "no_support_contact", message: "The store has not configured a support contact to hand over to." }],
        },
        now,
      ),
    };
  }
  return {
    outcome: "handoff",
    answer: composeAnswer(
      {
        answer_status: "handed_off",
        response_markdown: `${T(t.lang).handingOver}\n\n${line}`,
        handoff: { reason: "requested", support_contact: contact },
        next_actions: [contactAction()],
      },
      now,
    ),
  };
}
