// TypeBox schemas of a thread's transcript (routes.ts documents with it; service.ts types its values
// from it) and of the requests the session and thread routes validate.
import { Type, type Static } from "typebox";
import { AnswerSchema } from "../answers/schemas.js";
import { Locale } from "../http/schemas.js";

/**
 * A thread's transcript: per turn, the user's message, then (once the turn completed) the
 * assistant's message whose text is the answer's response_markdown, with its outcome and the
 * whole answer object. User messages carry outcome and answer null.
 */
export const TranscriptMessageSchema = Type.Object({
  role: Type.Union([Type.Literal("user"), Type.Literal("assistant")]),
  turn_id: Type.String({ description: "turn_… (a user message and its answer share it)" }),
  text: Type.String(),
  created_at: Type.String({ format: "date-time" }),
  outcome: Type.Union([Type.String(), Type.Null()], { description: "The turn's outcome (assistant messages)" }),
  answer: Type.Union([AnswerSchema, Type.Null()], { description: "The answer object (assistant messages)" }),
});

export const TranscriptSchema = Type.Object({
  thread_id: Type.String(),
  locale: Type.String(),
  created_at: Type.String({ format: "date-time" }),
  messages: Type.Array(TranscriptMessageSchema),
});

export type TranscriptMessage = Static<typeof TranscriptMessageSchema>;
export type Transcript = Static<typeof TranscriptSchema>;

// Requests: the bodies and params the session and thread routes validate.
export const AnonymousSessionBody = Type.Object(
  { store_public_key: Type.String({ minLength: 1, maxLength: 200 }), locale: Type.Optional(Locale) },
  { additionalProperties: false },
);
export const RevokeBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false });
export const ThreadBody = Type.Object({ locale: Type.Optional(Locale) }, { additionalProperties: false });
export const ThreadParams = Type.Object({ thread_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
