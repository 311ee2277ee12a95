import { readFileSync } from "node:fs";
const busy = () => { const v = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number); return (v[0]! + v[1]! + v[2]! + v[5]! + v[6]!) / 100; };
const own = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const med = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]!; };
async function quiet() { for (let k = 0; k < 120; k++) { const a = busy(), o = own(); await new Promise((r) => setTimeout(r, 3000)); const f = (busy() - a - (own() - o)) / 3; if (f < 0.15) return; } }
const T = await import("@huggingface/transformers");
T.env.allowRemoteModels = false; T.env.localModelPath = "/";
const tok = await T.AutoTokenizer.from_pretrained("/tmp/random-clip");
for (let rep = 0; rep < 2; rep++)
for (const [threads, spin] of [[2, "1"], [2, "0"], [1, "1"], [1, "0"]] as const) {
  const so = { intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: "sequential" as const, graphOptimizationLevel: "all" as const, extra: { session: { intra_op: { allow_spinning: spin } } } };
  const tm = await T.CLIPTextModelWithProjection.from_pretrained("/tmp/random-clip", { dtype: "fp32", session_options: so });
  const vm = await T.CLIPVisionModelWithProjection.from_pretrained("/tmp/random-clip", { dtype: "fp32", session_options: so });
  const px1 = new T.Tensor("float32", new Float32Array(3 * 224 * 224).fill(0.1), [1, 3, 224, 224]);
  const px16 = new T.Tensor("float32", new Float32Array(16 * 3 * 224 * 224).fill(0.1), [16, 3, 224, 224]);
  await quiet();
  const m0 = busy(), o0 = own(), w0 = performance.now();
  const tb1: number[] = [], ib1: number[] = [], ib16: number[] = [];
  for (let i = 0; i < 23; i++) { const t = performance.now(); await tm(tok([`Turtle Check Men Navy Blue Shirt ${i}`], { padding: true, truncation: true })); if (i > 2) tb1.push(performance.now() - t); }
  for (let i = 0; i < 10; i++) { const t = performance.now(); await vm({ pixel_values: px1 }); if (i > 1) ib1.push(performance.now() - t); }
  for (let i = 0; i < 4; i++) { const t = performance.now(); await vm({ pixel_values: px16 }); if (i > 0) ib16.push(performance.now() - t); }
  const foreign = (busy() - m0 - (own() - o0)) / ((performance.now() - w0) / 1000);
  console.log(`threads ${threads} spin ${spin}: text b1 ${med(tb1).toFixed(1)} ms, image b1 ${med(ib1).toFixed(1)} ms, image b16 ${(16000 / med(ib16)).toFixed(1)} img/s; foreign ${foreign.toFixed(2)}`);
  await tm.dispose(); await vm.dispose();
}
