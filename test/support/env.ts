// Test-only settings. TEST_DATABASE_URL points the PostgreSQL variants at a real server
// (.ci/run starts one); TEST_REDIS_URL likewise for Redis. In CI both are required: a missing
// server fails the run instead of skipping tests.
export const testEnv = {
  databaseUrl: process.env.TEST_DATABASE_URL || undefined,
  redisUrl: process.env.TEST_REDIS_URL || undefined,
  /** A streaming replica of TEST_DATABASE_URL's server (.ci/run step 3b), for the read-replica tests. */
  databaseReadUrl: process.env.TEST_DATABASE_READ_URL || undefined,
  ci: process.env.CI === "true" || process.env.CI === "1",
  /** Chromium for the browser tests (Debian's package by default). */
  chromiumPath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
};
