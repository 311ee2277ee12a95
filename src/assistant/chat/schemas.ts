// TypeBox schemas of the chat routes: the thread's events and the message response.
import { Type, type Static } from "typebox";
import { AnswerSchema, OutcomeSchema } from "../answers/schemas.js";

export const EventSchema = Type.Object({
  id: Type.Integer({ description: "Per-thread sequence number (also the SSE id and Last-Event-ID)" }),
  event: Type.String({ description: "Event name (see the README: Chat events)" }),
  turn_id: Type.Union([Type.String(), Type.Null()]),
  data: Type.Object({}, { additionalProperties: true }),
  created_at: Type.String({ format: "date-time" }),
});

export const MessageResponseSchema = Type.Object({
  outcome: OutcomeSchema,
  answer: AnswerSchema,
  events: Type.Array(EventSchema),
  turn_id: Type.String({ description: "turn_…" }),
  correlation_id: Type.String(),
});

export type ChatEvent = Static<typeof EventSchema>;
