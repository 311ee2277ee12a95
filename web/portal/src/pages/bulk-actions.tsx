// Bulk actions on the catalogue (issue 38, item 5): rows are checked one by one or all on the
// page, then deleted or given a category, brand, tags or availability as one bulk job
// (POST /v1/products/bulk-delete, /bulk-update), after a confirmation. The job's progress is
// polled from GET /v1/jobs/{job_id}; when it ends the list is loaded again and the selection cleared.
import { useState } from "preact/hooks";
import { api } from "../api";
import { AVAILABILITY_LABELS, AvailabilityOptions, type AvailabilityState } from "../components";
import type { SearchBody, SearchOk } from "../api-types";
import { Alert, ErrorNotice, Field, JobErrors, Success, commaList, fmtNumber, startedJob, useAction, useJobPoll } from "../ui";

type Job = SearchOk<"/v1/jobs/{job_id}">;
type Started = SearchOk<"/v1/products/bulk-delete", "post">;
type Changes = NonNullable<SearchBody<"/v1/products/bulk-update">["set"]>;
/** What the bar shows of a job: known from the 202 answer before the first poll. */
type Progress = Pick<Job, "job_id" | "status" | "total" | "processed" | "succeeded" | "failed" | "errors" | "action"> & {
  summary?: string;
};

/** The ids checked on the catalogue page. */
export function useSelection() {
  const [ids, setIds] = useState<ReadonlySet<string>>(new Set());
  return {
    ids,
    has: (id: string) => ids.has(id),
    toggle: (id: string, on: boolean) => {
      const next = new Set(ids);
      if (on) next.add(id);
      else next.delete(id);
      setIds(next);
    },
    set: (next: Iterable<string>) => setIds(new Set(next)),
    clear: () => setIds(new Set()),
  };
}
export type Selection = ReturnType<typeof useSelection>;

/** The checkbox of one catalogue row, named by the product id (names may repeat, ids do not). */
export function SelectBox({ id, selection }: { id: string; selection: Selection }) {
  return (
    <input
      type="checkbox"
      aria-label={`Select ${id}`}
      checked={selection.has(id)}
      onChange={(e) => selection.toggle(id, e.currentTarget.checked)}
    />
  );
}

const plural = (n: number) => `${fmtNumber(n)} product${n === 1 ? "" : "s"}`;

/**
 * The action bar above the catalogue: "Select all on this page", the count, Delete… and
 * Set category / brand / tags…, the change form and the running job's progress.
 */
export function BulkActions({
  slug,
  pageIds,
  selection,
  onDone,
}: {
  slug: string;
  pageIds: readonly string[];
  selection: Selection;
  onDone: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const { busy, error, run, setError } = useAction();
  const progress = useJobPoll<Progress>(slug, {
    onError: setError,
    onEnd: () => {
      selection.clear();
      onDone();
    },
  });
  const job = progress.job;

  const count = selection.ids.size;
  const running = job?.status === "processing" && !progress.stalled;
  const allOnPage = pageIds.every((id) => selection.has(id));
  const someOnPage = pageIds.some((id) => selection.has(id));

  const start = (path: "/v1/products/bulk-delete" | "/v1/products/bulk-update", body: object) =>
    run(async () => {
      const res = await api<Started>(path, { store: slug, body: { ids: [...selection.ids], ...body } });
      setEditing(false);
      progress.start({ ...startedJob(res), action: res.action });
    });

  return (
    <div class="bulk-actions">
      {/* An empty page (e.g. after deleting all it showed) keeps the job's outcome, not the bar. */}
      {pageIds.length > 0 && (
        <div class="bulk-bar" role="toolbar" aria-label="Bulk actions">
          <label class="check">
            <input
              type="checkbox"
              checked={allOnPage}
              ref={(el) => {
                if (el) el.indeterminate = someOnPage && !allOnPage;
              }}
              disabled={running}
              // The selection is this page's only (cleared when the page or filter changes).
              onChange={(e) => selection.set(e.currentTarget.checked ? pageIds : [])}
            />{" "}
            Select all on this page
          </label>
          <span class="muted" aria-live="polite">
            {count === 0 ? "No products selected" : `${plural(count)} selected`}
          </span>
          <button
            type="button"
            class="danger small"
            disabled={count === 0 || busy || running}
            onClick={() => {
              if (!confirm(`Delete ${plural(count)}? Their images, vectors and search data are removed too. This cannot be undone.`))
                return;
              void start("/v1/products/bulk-delete", {});
            }}
          >
            Delete…
          </button>
          <button type="button" class="secondary small" disabled={count === 0 || busy || running} onClick={() => setEditing(!editing)}>
            Set category / brand / tags…
          </button>
        </div>
      )}
      {editing && count > 0 && (
        <ChangeForm
          count={count}
          busy={busy}
          onCancel={() => setEditing(false)}
          onApply={(body) => void start("/v1/products/bulk-update", body)}
        />
      )}
      <ErrorNotice error={error} />
      {job && <JobProgress job={job} />}
    </div>
  );
}

function ChangeForm({
  count,
  busy,
  onCancel,
  onApply,
}: {
  count: number;
  busy: boolean;
  onCancel: () => void;
  onApply: (body: SearchBody<"/v1/products/bulk-update">) => void;
}) {
  const empty = { category: "", brand: "", add: "", remove: "", availability: "" };
  const [f, setF] = useState(empty);
  const [problem, setProblem] = useState<string | null>(null);
  const set = (k: keyof typeof empty) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    setF({ ...f, [k]: e.currentTarget.value });
  return (
    <form
      class="bulk-change"
      aria-label="Change the selected products"
      onSubmit={(e) => {
        e.preventDefault();
        const changes: Changes = {};
        if (f.category.trim()) changes.category = f.category.trim();
        if (f.brand.trim()) changes.brand = f.brand.trim();
        if (f.availability === "unknown") changes.availability = null;
        else if (f.availability) changes.availability = { state: f.availability as AvailabilityState };
        const add = commaList(f.add);
        const remove = commaList(f.remove);
        const described = [
          changes.category !== undefined && `category “${changes.category}”`,
          changes.brand !== undefined && `brand “${changes.brand}”`,
          add.length > 0 && `add tags ${add.join(", ")}`,
          remove.length > 0 && `remove tags ${remove.join(", ")}`,
          changes.availability !== undefined &&
            `availability ${changes.availability ? AVAILABILITY_LABELS[changes.availability.state] : "unknown"}`,
        ].filter(Boolean);
        if (described.length === 0) {
          setProblem("Enter at least one change: a category, a brand, tags to add or remove, or an availability.");
          return;
        }
        setProblem(null);
        if (!confirm(`Change ${plural(count)}: ${described.join("; ")}?`)) return;
        onApply({
          ...(Object.keys(changes).length > 0 ? { set: changes } : {}),
          ...(add.length > 0 ? { add_tags: add } : {}),
          ...(remove.length > 0 ? { remove_tags: remove } : {}),
        });
      }}
    >
      <p class="muted">Fields left empty stay as they are on each product.</p>
      <div class="grid-form">
        <Field label="New category">
          <input name="bulk_category" maxLength={100} value={f.category} onInput={set("category")} />
        </Field>
        <Field label="New brand">
          <input name="bulk_brand" maxLength={100} value={f.brand} onInput={set("brand")} />
        </Field>
        <Field label="Add tags" hint="Separated by commas">
          <input name="bulk_add_tags" value={f.add} onInput={set("add")} />
        </Field>
        <Field label="Remove tags" hint="Separated by commas">
          <input name="bulk_remove_tags" value={f.remove} onInput={set("remove")} />
        </Field>
        <Field label="New availability">
          <select name="bulk_availability" value={f.availability} onChange={set("availability")}>
            <option value="">Keep as it is</option>
            <AvailabilityOptions />
            <option value="unknown">Unknown</option>
          </select>
        </Field>
      </div>
      {problem && <Alert>{problem}</Alert>}
      <div class="inline">
        <button type="submit" disabled={busy}>
          Apply to {plural(count)}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function JobProgress({ job }: { job: Progress }) {
  const verb = job.action === "delete" ? { doing: "Deleting", done: "deleted" } : { doing: "Updating", done: "updated" };
  return (
    <div class="job" aria-live="polite">
      <label>
        {job.status === "processing" ? `${verb.doing} ${plural(job.total)}` : `Bulk ${job.action} ${job.status}`} —{" "}
        {fmtNumber(job.processed)} of {fmtNumber(job.total)} done ({fmtNumber(job.succeeded)} {verb.done}, {fmtNumber(job.failed)} failed)
        <progress max={job.total} value={job.processed} />
      </label>
      {job.status === "completed" && job.failed === 0 && <Success>{`${plural(job.succeeded)} ${verb.done}.`}</Success>}
      {job.status !== "processing" && (job.failed > 0 || job.status === "failed") && job.summary && <Alert>{job.summary}</Alert>}
      <JobErrors errors={job.errors} what="not changed" />
    </div>
  );
}
