// The shared core's repositories, created once by each API's composition root
// (src/search/compose.ts) and handed to the services and the authenticator that use them.
import type { Executor } from "../platform/db/index.js";
import { SecurityRepository } from "./security/repository.js";
import { AccountsRepository } from "./stores/repository.js";
import { UsersRepository } from "./users/repository.js";

export interface TenancyRepositories {
  /** Stores, users and memberships. */
  accounts: AccountsRepository;
  /** API keys, IP allow-lists and security events. */
  security: SecurityRepository;
  /** Store members, groups and permissions. */
  users: UsersRepository;
}

export function tenancyRepositories(db: Executor): TenancyRepositories {
  return { accounts: new AccountsRepository(db), security: new SecurityRepository(db), users: new UsersRepository(db) };
}
