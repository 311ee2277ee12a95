// Passwords: argon2id hashes. Policy: 10 to 256 characters, drawn from at least two of the
// classes lower-case letters, upper-case letters, digits and other characters, and not one of the
// common passwords of zxcvbn-ts's list (@zxcvbn-ts/language-common, 49,233 passwords from breach
// corpora; compared without case), as NIST SP 800-63B asks of a blocklist.
import argon2 from "argon2";
import { dictionary } from "@zxcvbn-ts/language-common";

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_POLICY =
  "at least 10 and at most 256 characters, from at least two of: lower-case letters, upper-case letters, digits, other characters; not a commonly used password";

let common: ReadonlySet<string> | undefined;
const isCommonPassword = (password: string): boolean => (common ??= new Set(dictionary["passwords-common"])).has(password.toLowerCase());

/** Returns a reason the password is refused, or null when it meets the policy. */
export function passwordProblem(password: string): string | null {
  if (password.length < 10 || password.length > 256) return `Password must be ${PASSWORD_POLICY}.`;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((re) => re.test(password)).length;
  if (classes < 2) return `Password must be ${PASSWORD_POLICY}.`;
  if (isCommonPassword(password)) {
    return "This password is on a list of commonly used passwords that attackers try first; choose a longer, less predictable one (a few unrelated words work well).";
  }
  return null;
}

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, OPTIONS);

let dummyHash: Promise<string> | undefined;

/**
 * Verifies `password` against `hash`. With no hash (unknown account) it still runs one argon2
 * verification against a fixed dummy hash, so unknown accounts cost the same time as known ones.
 */
export async function verifyPassword(hash: string | undefined, password: string): Promise<boolean> {
  if (!hash) {
    dummyHash ??= argon2.hash("dummy password for timing", OPTIONS);
    await argon2.verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return argon2.verify(hash, password).catch(() => false);
}
