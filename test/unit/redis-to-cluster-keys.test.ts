import { describe, expect, it } from 'vitest';
import { clusterKeyOf } from '../../scripts/lib/redis-to-cluster.js';

/** npm run redis:to-cluster: where each key of a single Redis node goes on a Redis Cluster. */
describe('clusterKeyOf', () => {
  it.each([
    ['docs-agent:t:T0ALPHA:jobs:index', 'docs-agent:t:{T0ALPHA}:jobs:index'],
    ['docs-agent:t:E0GRID:deliveries:due:reply', 'docs-agent:t:{E0GRID}:deliveries:due:reply'],
    // Keyv's records: namespace, then `:` and its own key.
    ['docs-agent:t:T0ALPHA::job:1', 'docs-agent:t:{T0ALPHA}::job:1'],
    ['docs-agent:t:T0ALPHA@1:x', 'docs-agent:t:{T0ALPHA}@1:x'],
    ['docs-agent:t:T0ALPHA@12::job:1', 'docs-agent:t:{T0ALPHA}@12::job:1'],
    // A queue name further down is no old queue: only `<ns>:bull:` is.
    ['docs-agent:t:T0ALPHA:polls:wakeups', 'docs-agent:t:{T0ALPHA}:polls:wakeups'],
    ['docs-agent:directory:tenants', 'docs-agent:{directory}:tenants'],
    // An install's record goes to its tenant's slot (issue 43 §5), the index stays in the directory's.
    ['docs-agent:directory:tenant:T0ALPHA:state', 'docs-agent:directory:tenant:{T0ALPHA}:state'],
    ['docs-agent:directory:tenant-refresh-due', 'docs-agent:{directory}:tenant-refresh-due'],
    [
      'docs-agent:directory:tenant:T0ALPHA:installation',
      'docs-agent:directory:tenant:{T0ALPHA}:installation',
    ],
    // A used install link stays used after the move (issue 44: single-use states).
    [
      'docs-agent:install-state:eOCpsU6gBxt9AxUgtaHt',
      'docs-agent:{installs}:install-state:eOCpsU6gBxt9AxUgtaHt',
    ],
  ])('renames %s to %s', (key, to) => {
    expect(clusterKeyOf(key)).toEqual({ to });
    // The upgraded workspace's option changes nothing for keys that say whose they are.
    expect(clusterKeyOf(key, 'T0UPGRADED')).toEqual({ to });
  });

  it.each([
    'docs-agent:{plane-polls}:meta',
    'docs-agent:{plane-polls}:rate:T0ALPHA:1700000000',
    'docs-agent:{due}:tenants',
    'docs-agent:{plane}:migrated',
  ])('keeps the already tagged %s', (key) => {
    expect(clusterKeyOf(key)).toEqual({ to: key });
  });

  it.each([
    ['docs-agent:installs:29000000', 'install-counter'],
    ['docs-agent:installs:29000000:10.0.0.1', 'install-counter'],
    ['docs-agent:install-failures:29000000:10.0.0.1', 'install-counter'],
    ['docs-agent:t:T0ALPHA:bull:polls:meta', 'old-queue'],
    ['docs-agent:t:T0ALPHA@2:bull:pr-follow:delayed', 'old-queue'],
    ['docs-agent:bull:polls:id', 'old-queue'],
    ['sessions:abc', 'not-ours'],
    ['docs-agent', 'not-ours'],
    ['docs-agent-evidence:x', 'not-ours'],
    // Under `docs-agent:t:` but no tenant key the product writes: left alone, never taken for the upgraded's.
    ['docs-agent:t:lowercase:x', 'not-ours'],
    ['docs-agent:t:T0ALPHA', 'not-ours'],
    ['docs-agent:t:T0ALPHA@0:x', 'not-ours'],
    ['docs-agent:t:T0ALPHA@01:x', 'not-ours'],
    ['docs-agent:t:T0ALPHA@x:y', 'not-ours'],
    ['docs-agent:t:{T0ALPHA}:x', 'not-ours'],
  ])('leaves %s behind (%s)', (key, skip) => {
    expect(clusterKeyOf(key)).toEqual({ skip });
    expect(clusterKeyOf(key, 'T0UPGRADED')).toEqual({ skip });
  });

  it.each([
    ['docs-agent::job:1', 'docs-agent:t:{T0UPGRADED}::job:1'],
    ['docs-agent:deliveries:due:reply', 'docs-agent:t:{T0UPGRADED}:deliveries:due:reply'],
    ['docs-agent:quota:agent-jobs:proj_1', 'docs-agent:t:{T0UPGRADED}:quota:agent-jobs:proj_1'],
  ])("moves the upgraded workspace's %s under its tenant", (key, to) => {
    expect(clusterKeyOf(key, 'T0UPGRADED')).toEqual({ to });
    // Without the option nobody knows whose it is: the tool refuses.
    expect(clusterKeyOf(key)).toEqual({ unknown: true });
  });
});
