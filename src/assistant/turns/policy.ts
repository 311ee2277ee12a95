// A policy question: the knowledge engine's grounded answer (with the thread's previous question
// for follow-ups), framed in the thread's language. An answer leads with the value asked for when
// the engine found one (a duration, deadline or amount quoted from the cited sentence); a conflict
// or missing evidence hands off to the store's team, as does a request for a person (handoffTurn).
import { composeAnswer, contactAction, contactLine, type AnswerParts } from "../answers/compose.js";
import { T } from "../answers/i18n.js";
import type { Limitation } from "../answers/schemas.js";
import { EVENT, type TurnReply, type TurnTools } from "./tools.js";

export async function policyTurn(t: TurnTools): Promise<TurnReply> {
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
  if (result.kind === "conflict") {
    return handOff(t, {
      reason: "policy_conflict",
      markdown: result.markdown,
      noContact: T(t.lang).noContactForConflict,
      extra: { ...base, citations: result.citations, conflicts: result.conflicts },
    });
  }
  return handOff(t, {
    reason: "no_evidence",
    markdown: result.markdown.trim() || T(t.lang).noEvidence,
    noContact: T(t.lang).noContactForEvidence,
    extra: { ...base, limitations: [{ code: "no_evidence", message: "No published policy of the store covers this question." }] },
  });
}

/** The shopper asked for a person (router rule 1b): a handoff with the store's support contact, whatever the question. */
export function handoffTurn(t: TurnTools): Promise<TurnReply> {
  // "The team will take it from here" only when there is a contact to name.
  return handOff(t, {
    reason: "requested",
    markdown: "",
    withContact: T(t.lang).handingOver,
    noContact: T(t.lang).noContactForPerson,
    extra: {},
  });
}

/**
 * Every handoff (a conflict, no evidence, a request for a person): the outcome says a person has to
 * take over, and the reply names the store's support contact. A store that configured none still
 * hands off (its own page may offer a person some other way), and the reply says no contact is
 * configured, with a `no_support_contact` limitation and no contact action.
 */
async function handOff(
  t: TurnTools,
  h: {
    reason: "policy_conflict" | "no_evidence" | "requested";
    markdown: string;
    /** Said before the contact line when the store has a contact. */
    withContact?: string;
    /** Said instead of the contact line when it has none. */
    noContact: string;
    extra: Partial<AnswerParts>;
  },
): Promise<TurnReply> {
  const { support_contact: contact } = await t.settings.get(t.handle.session.storeId);
  const line = contactLine(contact, t.lang);
  const limitations: Limitation[] = [
    ...(h.extra.limitations ?? []),
    ...(line ? [] : [{ code: "no_support_contact", message: "The store has not configured a support contact to hand over to." }]),
  ];
  return {
    outcome: "handoff",
    answer: composeAnswer(
      {
        ...h.extra,
        answer_status: "handed_off",
        response_markdown: (line ? [h.markdown, h.withContact, line] : [h.markdown, h.noContact]).filter(Boolean).join("\n\n"),
        limitations,
        handoff: { reason: h.reason, support_contact: line ? contact : null },
        next_actions: line ? [contactAction()] : [],
      },
      t.now(),
    ),
  };
}
