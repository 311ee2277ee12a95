export function escapeHtml(text: string): string;
export function safeUrl(escaped: string): string | null;
export function renderMarkdown(markdown: string): string;
