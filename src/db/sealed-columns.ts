// The product's sealed columns (src/platform/secrets.ts seals and opens them): each value is bound
// to its table, column and row by its additional authenticated data, so a sealed value copied to
// another row or column does not open.
/** The additional authenticated data of each sealed column: its table, column and row id. */
export const secretAad = {
  totp: (userId: string) => `users.totp_secret:${userId}`,
  webhook: (webhookId: string) => `webhooks.secret:${webhookId}`,
  delivery: (deliveryId: string) => `webhook_deliveries.secret:${deliveryId}`,
  callback: (jobId: string) => `bulk_jobs.callback_secret:${jobId}`,
};
