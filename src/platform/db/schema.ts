// Row types of every table, as Kysely sees them. Timestamps are epoch milliseconds.
import type { Generated } from "kysely";

export interface StoresTable {
  id: string;
  slug: string;
  name: string;
  status: "inactive" | "active";
  plan: string;
  client_secret_hash: string | null;
  secret_rotated_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  full_name: Generated<string>;
  is_super_admin: Generated<number>;
  totp_secret: string | null;
  totp_enabled: Generated<number>;
  created_at: number;
}

export type Role = "owner" | "admin" | "developer" | "viewer";

export interface MembershipsTable {
  store_id: string;
  user_id: string;
  role: Role;
  last_used_at: number | null;
  created_at: number;
}

export interface VerificationTokensTable {
  token_hash: string;
  store_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface RevokedTokensTable {
  jti: string;
  expires_at: number;
}

export interface AuthEventsTable {
  id: string;
  store_id: string | null;
  user_id: string | null;
  kind: string;
  identity: string | null;
  ip: string | null;
  created_at: number;
}

export interface Schema {
  stores: StoresTable;
  users: UsersTable;
  memberships: MembershipsTable;
  verification_tokens: VerificationTokensTable;
  revoked_tokens: RevokedTokensTable;
  auth_events: AuthEventsTable;
}
