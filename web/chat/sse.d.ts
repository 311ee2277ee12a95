export interface SseEvent {
  event: string;
  data: string;
  id: string;
}
export interface SseParser {
  push(chunk: string): void;
  end(): void;
  readonly lastEventId: string;
  readonly retry: number | null;
}
export function createSseParser(onEvent: (event: SseEvent) => void): SseParser;
