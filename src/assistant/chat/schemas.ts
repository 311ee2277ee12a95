// TypeBox schemas of the chat routes: the thread's events, the message response, the replay and
// the action confirm/cancel results (routes.ts and actions-routes.ts document with them; service.ts
// types its values from them), and the requests those routes validate.
import { Type, type Static } from "typebox";
import { AnswerSchema, OutcomeSchema, type Outcome } from "../answers/schemas.js";
import { MAX_TEXT_LENGTH } from "../turns/limits.js";

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

export const ReplaySchema = Type.Object({
  thread_id: Type.String(),
  events: Type.Array(EventSchema),
  last_event_id: Type.Integer({ description: "Id of the last event returned (the `after` given when none)" }),
});

const ActionSchema = Type.Object({
  name: Type.String({ description: "add_to_cart | start_return" }),
  arguments: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), { description: "Exactly the previewed arguments" }),
});

export const ConfirmResultSchema = Type.Object({
  intent_id: Type.String(),
  thread_id: Type.String(),
  status: Type.Literal("completed"),
  action: ActionSchema,
  result: Type.Object(
    {},
    { additionalProperties: true, description: "What the store returned, e.g. {cart_id, line_count} or {return_id}" },
  ),
});

export const CancelResultSchema = Type.Object({ intent_id: Type.String(), thread_id: Type.String(), status: Type.Literal("cancelled") });

export type ChatEvent = Static<typeof EventSchema>;
/** A completed turn: the message response without its correlation id; the outcome is one of OUTCOMES. */
export type TurnResult = Omit<Static<typeof MessageResponseSchema>, "correlation_id" | "outcome"> & { outcome: Outcome };
export type Replay = Static<typeof ReplaySchema>;
export type ConfirmResult = Static<typeof ConfirmResultSchema>;
export type CancelResult = Static<typeof CancelResultSchema>;

// Requests: the bodies, params, querystring and headers the chat routes validate.
const ThreadId = Type.String({ minLength: 1, maxLength: 100, description: "thr_…" });
export const MessageBody = Type.Object(
  {
    thread_id: ThreadId,
    text: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, pattern: "\\S", description: "The shopper's message" }),
  },
  { additionalProperties: false },
);
export const IntentBody = Type.Object(
  { thread_id: ThreadId, intent_id: Type.String({ minLength: 1, maxLength: 100, description: "int_…" }) },
  { additionalProperties: false },
);
export const ThreadParams = Type.Object({ thread_id: ThreadId }, { additionalProperties: false });
export const ReplayQuery = Type.Object(
  { after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })) },
  { additionalProperties: false },
);
export const ReplayHeaders = Type.Object({ "last-event-id": Type.Optional(Type.String({ pattern: "^[0-9]{1,15}$" })) });
