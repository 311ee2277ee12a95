// Shared building blocks of the store pages: tables, status badges, delete buttons, checkbox
// sets, select options, list filters and cursor paging.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api } from "./api";
import { Loaded, type useAction } from "./ui";
import type { Item, SearchOk } from "./api-types";

/** A `table.table` with one header row; `actions` adds a last, visually hidden header (a column of buttons or links). */
export function Table({
  columns,
  actions,
  label,
  children,
}: {
  columns: string[];
  actions?: string;
  label?: string;
  children: ComponentChildren;
}) {
  return (
    <table class="table" aria-label={label}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
          {actions !== undefined && (
            <th scope="col">
              <span class="sr-only">{actions}</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** A `useLoad` list as a `Table` of `row(item)`s, with `Loaded`'s loading and empty states. */
export function ListTable<T>({
  state,
  what,
  empty,
  row,
  ...table
}: {
  state: { data: T[] | null | undefined; loading: boolean };
  what?: string;
  empty?: ComponentChildren;
  row: (item: T) => ComponentChildren;
  columns: string[];
  actions?: string;
  label?: string;
}) {
  return (
    <Loaded state={state} what={what} empty={empty}>
      {(items) => <Table {...table}>{items.map(row)}</Table>}
    </Loaded>
  );
}

/** A status word drawn as a badge (the status is also its CSS class). */
export function Badge({ status }: { status: string }) {
  return <span class={`badge ${status}`}>{status}</span>;
}

/**
 * A small danger button that DELETEs `path` in the store (after `confirm(question)` when given)
 * through the page's action, then calls `onDone`.
 */
export function DeleteButton({
  act,
  path,
  store,
  question,
  onDone,
  disabled,
  children,
  remove = (p, s) => api(p, { store: s, method: "DELETE" }),
}: {
  act: Pick<ReturnType<typeof useAction>, "run">;
  path: string;
  store: string;
  question?: string;
  onDone: () => void;
  disabled?: boolean;
  children: ComponentChildren;
  /** How to DELETE `path` (default: the Search API; the Assistant section passes assistantApi). */
  remove?: (path: string, store: string) => Promise<unknown>;
}) {
  return (
    <button
      type="button"
      class="danger small"
      disabled={disabled}
      onClick={() => {
        if (question !== undefined && !confirm(question)) return;
        void act.run(async () => {
          await remove(path, store);
          onDone();
        });
      }}
    >
      {children}
    </button>
  );
}

/** A fieldset of checkboxes choosing a subset of `options`. */
export function CheckSet({
  legend,
  options,
  chosen,
  onChange,
}: {
  legend: string;
  options: readonly string[];
  chosen: Set<string>;
  onChange: (next: Set<string>) => void;
}) {
  return (
    <fieldset class="checks">
      <legend>{legend}</legend>
      {options.map((o) => (
        <label key={o} class="check">
          <input
            type="checkbox"
            checked={chosen.has(o)}
            onChange={(e) => {
              const next = new Set(chosen);
              if (e.currentTarget.checked) next.add(o);
              else next.delete(o);
              onChange(next);
            }}
          />{" "}
          {o}
        </label>
      ))}
    </fieldset>
  );
}

/** `<option>`s whose value and text are the same word. */
export function Options({ values }: { values: readonly string[] }) {
  return (
    <>
      {values.map((v) => (
        <option key={v} value={v}>
          {v}
        </option>
      ))}
    </>
  );
}

/** A product's stated stock (POST /v1/products `availability.state`). */
export type AvailabilityState = NonNullable<Item<SearchOk<"/v1/products">["products"]>["availability"]>["state"];

/** The states a store can state, in the words the portal shows (the API's values in the CSV and JSON). */
export const AVAILABILITY_LABELS: Record<AvailabilityState, string> = {
  in_stock: "In stock",
  low_stock: "Low stock",
  out_of_stock: "Out of stock",
};

/** The <option>s of the availability states. */
export function AvailabilityOptions() {
  return (
    <>
      {Object.entries(AVAILABILITY_LABELS).map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
    </>
  );
}

/** The inline search form in a list's section head: `onSearch` runs on submit. */
export function FilterForm({ button, onSearch, children }: { button: string; onSearch: () => void; children: ComponentChildren }) {
  return (
    <form
      class="inline"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch();
      }}
    >
      {children}
      <button type="submit" class="secondary">
        {button}
      </button>
    </form>
  );
}

/** Cursor paging: the stack of cursors of the pages before this one; `cursor` is this page's (undefined on the first). */
export function useCursors() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    cursor: cursors[cursors.length - 1],
    first: cursors.length === 0,
    reset: () => setCursors([]),
    back: () => setCursors(cursors.slice(0, -1)),
    forward: (next: string) => setCursors([...cursors, next]),
  };
}

/** Previous / Next buttons over `useCursors`; `next` is the list's `next_cursor`. */
export function Pager({ pages, next }: { pages: ReturnType<typeof useCursors>; next: string | null | undefined }) {
  return (
    <div class="pager">
      <button type="button" class="secondary" disabled={pages.first} onClick={pages.back}>
        Previous
      </button>
      <button type="button" class="secondary" disabled={!next} onClick={() => next && pages.forward(next)}>
        Next
      </button>
    </div>
  );
}
