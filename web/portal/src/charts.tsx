// Hand-written SVG charts (no chart library): each has a text description for screen readers
// and the numbers in a table below.

import { fmtMoney, fmtNumber, pct } from "./ui";
const niceMax = (v: number) => {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  const m = v / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
};

export interface Point {
  label: string;
  value: number;
  secondary?: number;
}

/** Columns over time (e.g. searches per day), with an optional second series (zero-result searches). */
export function TimeChart({
  points,
  title,
  valueLabel,
  secondaryLabel,
}: {
  points: Point[];
  title: string;
  valueLabel: string;
  secondaryLabel?: string;
}) {
  const W = 640;
  const H = 220;
  const pad = { l: 40, r: 10, t: 10, b: 30 };
  const max = niceMax(Math.max(2, ...points.map((p) => p.value))); // at least 2: the half-way tick stays a whole number
  const iw = W - pad.l - pad.r;
  const ih = H - pad.t - pad.b;
  const bw = points.length > 0 ? iw / points.length : iw;
  const y = (v: number) => pad.t + ih - (v / max) * ih;
  const total = points.reduce((s, p) => s + p.value, 0);
  const every = Math.max(1, Math.ceil(points.length / 8));
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: ${total} ${valueLabel} over ${points.length} days`}>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line x1={pad.l} x2={W - pad.r} y1={y(max * f)} y2={y(max * f)} class="grid" />
            <text x={pad.l - 6} y={y(max * f) + 4} text-anchor="end" class="axis">
              {Math.round(max * f)}
            </text>
          </g>
        ))}
        {points.map((p, i) => (
          <g key={p.label}>
            <rect x={pad.l + i * bw + bw * 0.15} width={bw * 0.7} y={y(p.value)} height={Math.max(0, pad.t + ih - y(p.value))} class="bar">
              <title>{`${p.label}: ${p.value} ${valueLabel}${p.secondary !== undefined && secondaryLabel ? `, ${p.secondary} ${secondaryLabel}` : ""}`}</title>
            </rect>
            {p.secondary !== undefined && p.secondary > 0 && (
              <rect
                x={pad.l + i * bw + bw * 0.15}
                width={bw * 0.7}
                y={y(p.secondary)}
                height={Math.max(0, pad.t + ih - y(p.secondary))}
                class="bar-secondary"
              />
            )}
            {i % every === 0 && (
              <text x={pad.l + i * bw + bw / 2} y={H - 10} text-anchor="middle" class="axis">
                {p.label.slice(5)}
              </text>
            )}
          </g>
        ))}
      </svg>
      <figcaption>
        <span class="swatch bar" /> {valueLabel}
        {secondaryLabel && (
          <>
            {" "}
            <span class="swatch bar-secondary" /> {secondaryLabel}
          </>
        )}
      </figcaption>
    </figure>
  );
}

/** A conversion funnel: each step as a bar relative to the first. */
export function Funnel({ steps, title }: { steps: { label: string; value: number }[]; title: string }) {
  const first = steps[0]?.value ?? 0;
  const W = 640;
  const row = 44;
  const H = steps.length * row + 4;
  const lw = 150;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: ${steps.map((s) => `${s.label} ${s.value}`).join(", ")}`}>
        {steps.map((s, i) => {
          const share = first > 0 ? s.value / first : 0;
          const w = Math.max(2, share * (W - lw - 90));
          return (
            <g key={s.label} transform={`translate(0 ${i * row})`}>
              <text x={0} y={26} class="label-text">
                {s.label}
              </text>
              <rect x={lw} y={6} width={w} height={30} rx={4} class={`funnel-${i}`} />
              <text x={lw + w + 8} y={26} class="value-text">
                {fmtNumber(s.value)} {i > 0 && first > 0 ? `(${pct(share)})` : ""}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** Horizontal stacked bars per currency (never converted between currencies: each bar has its own scale note). */
export function RevenueBars({
  rows,
  title,
}: {
  rows: { currency: string; attributed: number; unattributed: number; total: number }[];
  title: string;
}) {
  const W = 640;
  const row = 44;
  const H = Math.max(1, rows.length) * row + 4;
  const lw = 70;
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`${title}: ${rows.map((r) => `${r.currency} ${r.total}`).join(", ") || "none"}`}
      >
        {rows.map((r, i) => {
          const span = W - lw - 160;
          const a = r.total > 0 ? (r.attributed / r.total) * span : 0;
          const u = r.total > 0 ? (r.unattributed / r.total) * span : 0;
          return (
            <g key={r.currency} transform={`translate(0 ${i * row})`}>
              <text x={0} y={26} class="label-text">
                {r.currency}
              </text>
              <rect x={lw} y={6} width={a} height={30} class="bar" />
              <rect x={lw + a} y={6} width={u} height={30} class="bar-muted" />
              <text x={lw + a + u + 8} y={26} class="value-text">
                {fmtMoney(r.total, r.currency.toUpperCase())}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="swatch bar" /> attributed to a search <span class="swatch bar-muted" /> unattributed. Each currency is its own bar:
        amounts are never converted.
      </figcaption>
    </figure>
  );
}
