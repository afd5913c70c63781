import { existsSync } from 'node:fs';
import { type Outcome, runDoctor } from './lib/doctor-checks.js';

/* npm run doctor: reads .env as `npm start` does, checks each part of the set-up, exits 1 if any failed. */

if (existsSync('.env')) process.loadEnvFile('.env');
const MARK: Record<Outcome, string> = { pass: 'ok  ', fail: 'FAIL', skip: 'skip' };
const checks = await runDoctor({ env: process.env });
for (const check of checks) process.stdout.write(`${MARK[check.outcome]}  ${check.name}: ${check.detail}\n`);
const failed = checks.filter((check) => check.outcome === 'fail').length;
process.stdout.write(
  failed === 0
    ? 'All set: npm start\n'
    : `${failed} problem${failed === 1 ? '' : 's'} to fix (docs/operating.md#minimal-set-ups)\n`,
);
process.exit(failed === 0 ? 0 : 1);
