// Request and response schemas of the IP allow-list routes (/v1/security/ip-whitelist*).
import { Type } from "typebox";

export const AllowlistEntry = Type.Object({
  id: Type.String(),
  ip_address: Type.String({ description: "Canonical address or network/prefix" }),
  description: Type.String(),
  created_at: Type.String({ format: "date-time" }),
});
export const AllowlistEntries = Type.Array(AllowlistEntry);

export const AddEntryBody = Type.Object(
  {
    ip_address: Type.String({
      minLength: 2,
      maxLength: 64,
      description: "IPv4 or IPv6 address, or CIDR range such as 203.0.113.0/24",
    }),
    description: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const EntryParams = Type.Object({ entry_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
export const EntryDeleted = Type.Object({ deleted: Type.Literal(true), id: Type.String() });
