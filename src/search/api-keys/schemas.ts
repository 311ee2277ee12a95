// Request and response schemas of the scoped API key routes (/v1/security/api-keys*).
import { Type } from "typebox";
import { DateTime, NullableDate } from "../../platform/http/schemas.js";
import { API_KEY_SCOPE_AREAS } from "../../tenancy/permissions.js";
import { API_KEY_DEFAULT_DAYS, API_KEY_MAX_DAYS } from "./service.js";

/** `{area: [action, …]}` with the areas and actions an API key may carry. */
export const ScopesInput = Type.Object(
  Object.fromEntries(
    Object.entries(API_KEY_SCOPE_AREAS).map(([area, actions]) => [
      area,
      Type.Optional(Type.Array(Type.Union(actions.map((a) => Type.Literal(a))), { minItems: 1, uniqueItems: true })),
    ]),
  ),
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Area → actions, e.g. {"products": ["read", "write"], "search": ["execute"]}; each pair is the permission area:action',
  },
);
const ScopesOutput = Type.Record(Type.String(), Type.Array(Type.String()));

export const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: "The first characters of the key, to recognise it" }),
  scopes: ScopesOutput,
  status: Type.Union([Type.Literal("active"), Type.Literal("expired"), Type.Literal("revoked")]),
  created_at: DateTime,
  expires_at: DateTime,
  last_used_at: NullableDate,
  revoked_at: NullableDate,
  created_by: Type.Union(
    [
      Type.Object({
        user_id: Type.String(),
        email: Type.Union([Type.String(), Type.Null()], { description: "null when the user account no longer exists" }),
        name: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ],
    {
      description:
        "The user who created the key; null when it was created with the store's machine grant. Removing a member from the store revokes the keys they created.",
    },
  ),
});

export const ApiKeyList = Type.Array(ApiKeyView);

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: ScopesInput,
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: API_KEY_MAX_DAYS, description: `Default ${API_KEY_DEFAULT_DAYS}` })),
  },
  { additionalProperties: false },
);

export const CreatedApiKey = Type.Object({ ...ApiKeyView.properties, key: Type.String({ description: "The secret, shown this once" }) });

export const KeyParams = Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
