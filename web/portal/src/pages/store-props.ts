// The props every store section page receives from the store portal (./store.tsx, which renders
// the section pages). A leaf below the pages: it imports no page, so no page imports ./store.tsx
// (checked by `npm run lint:deps`, .dependency-cruiser.portal.cjs).
import type { Session } from "../api";

export interface StoreProps {
  slug: string;
  session: Session;
}
