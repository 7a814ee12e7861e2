'use strict';
// Runs @sentry/node with continuous profiling (manual lifecycle) against the relay named by SENTRY_DSN:
// profiles a few seconds of CPU work in distinctively named functions, so the test can find them in the chunk.
if (process.argv.includes('--check-profiler')) {
  // Loads the prebuilt native profiler shipped in the package; throws (exit 1) when none fits this Node.
  const { PrivateCpuProfilerBindings } = require('@sentry/node-cpu-profiler');
  if (!PrivateCpuProfilerBindings || typeof PrivateCpuProfilerBindings.startProfiling !== 'function') {
    console.error('chunk-relay node driver: native profiler bindings lack startProfiling');
    process.exit(1);
  }
  console.log(`chunk-relay node driver: native profiler loaded on Node ${process.version}`);
  process.exit(0);
}

const Sentry = require('@sentry/node');
const { nodeProfilingIntegration } = require('@sentry/profiling-node');

const dsn = process.env.SENTRY_DSN;
if (!dsn) {
  console.error('chunk-relay node driver: SENTRY_DSN is not set');
  process.exit(2);
}
const busyMillis = Number(process.env.CHUNK_RELAY_BUSY_MILLIS || '6000');

Sentry.init({
  dsn,
  release: 'chunk-relay-e2e-node@1.0.0',
  environment: 'e2e',
  debug: process.env.CHUNK_RELAY_SENTRY_DEBUG === '1',
  integrations: [nodeProfilingIntegration()],
  tracesSampleRate: 1.0,
  profileSessionSampleRate: 1.0,
  profileLifecycle: 'manual',
});

function chunkRelayNodeBusyFibonacci(n) {
  return n < 2 ? n : chunkRelayNodeBusyFibonacci(n - 1) + chunkRelayNodeBusyFibonacci(n - 2);
}

function chunkRelayNodeBusySieve(limit) {
  const composite = new Uint8Array(limit + 1);
  let primes = 0;
  for (let i = 2; i <= limit; i++) {
    if (!composite[i]) {
      primes++;
      for (let j = i * i; j <= limit; j += i) composite[j] = 1;
    }
  }
  return primes;
}

function chunkRelayNodeBusyWork(millis) {
  const deadline = Date.now() + millis;
  let rounds = 0;
  let checksum = 0;
  while (Date.now() < deadline) {
    checksum += chunkRelayNodeBusyFibonacci(24);
    checksum += chunkRelayNodeBusySieve(200000);
    rounds++;
  }
  return { rounds, checksum };
}

async function main() {
  Sentry.profiler.startProfiler();
  // a transaction and an error too, which the relay passes on to an upstream Sentry when one is configured
  const { rounds, checksum } = Sentry.startSpan({ name: 'chunk-relay-e2e-transaction', op: 'task' },
    () => chunkRelayNodeBusyWork(busyMillis));
  Sentry.profiler.stopProfiler();
  Sentry.captureException(new Error('chunk-relay e2e error'));
  const flushed = await Sentry.flush(10000);
  console.log(`chunk-relay node driver: ${rounds} rounds (checksum ${checksum}), flushed=${flushed}`);
  if (!flushed) process.exit(3);
}

main().catch((err) => {
  console.error('chunk-relay node driver failed:', err);
  process.exit(1);
});
