// `prepack` (npm pack, npm publish): copies the built dashboard (../dashboard/dist) into dist/dashboard, so the
// published @chs/runner serves it at / like a clone does (http/dashboard.ts looks there when no dashboard/dist
// stands beside the package). Refuses to pack without one: a runner without its dashboard is not the product.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const from = fileURLToPath(new URL('../../dashboard/dist/', import.meta.url));
const to = fileURLToPath(new URL('../dist/dashboard/', import.meta.url));
if (!existsSync(`${from}index.html`)) {
  console.error(`pack-dashboard: no built dashboard at ${from} (npm run build -w dashboard, or npm run build at the root)`);
  process.exit(1);
}
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
console.error(`pack-dashboard: ${from} → dist/dashboard/`);
