// One agent per network namespace (a pod, or a node for its address and host-network pods),
// started with `ip netns exec`: it serves TCP (accept, close) and UDP (echo) on the given ports
// in both families, and probes other addresses on request, since a process cannot switch
// namespaces per socket. Plain JS so it starts in ~50 ms without a TypeScript loader.
//
// argv[2]: {"ports": [80, 81], "ipv6": true, "sctp": false}
// stdout:  {"ready": true} once listening, then {"id", "results": ["open" | "timeout" | "refused" | "error:<code>"]}
// stdin:   {"id", "timeoutMs", "probes": [{"host", "port", "protocol": "TCP" | "UDP" | "SCTP"}]}
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import readline from 'node:readline';

const config = JSON.parse(process.argv[2] ?? '{}');
const hosts = config.ipv6 ? ['0.0.0.0', '::'] : ['0.0.0.0'];
const say = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
const children = [];

function listenTcp(port, host) {
  return new Promise((resolve, reject) => {
    const server = net.createServer((s) => {
      s.on('error', () => {});
      s.end();
    });
    server.once('error', reject);
    server.listen({ port, host, ipv6Only: host === '::' }, resolve);
  });
}

function listenUdp(port, host) {
  return new Promise((resolve, reject) => {
    const sock = dgram.createSocket({ type: host === '::' ? 'udp6' : 'udp4', ipv6Only: host === '::' });
    sock.on('message', (msg, rinfo) => sock.send(msg, rinfo.port, rinfo.address));
    sock.once('error', reject);
    sock.bind(port, host, resolve);
  });
}

/** SCTP through socat: Node has no SCTP sockets. Only used when the kernel has SCTP. */
function listenSctp(port, host) {
  const child = spawn('socat', [`${host === '::' ? 'SCTP6' : 'SCTP4'}-LISTEN:${port},fork,reuseaddr${host === '::' ? ',ipv6only=1' : ''}`, 'EXEC:/bin/true'], { stdio: 'ignore' });
  children.push(child);
  return new Promise((resolve) => setTimeout(resolve, 100));
}

/**
 * A socket probe's one answer: the first of open, refused (ECONNREFUSED: no listener, or ICMP
 * port-unreachable on a connected UDP socket), error or timeout; then timers and socket go.
 * `start(sock, done, later)` wires the socket; `later` schedules work cancelled with the probe.
 */
function probeSocket(sock, timeoutMs, openOn, start) {
  return new Promise((resolve) => {
    const timers = [];
    let settled = false;
    const done = (result) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      if (typeof sock.destroy === 'function') sock.destroy();
      else sock.close();
      resolve(result);
    };
    const later = (fn, ms) => timers.push(setTimeout(fn, ms));
    later(() => done('timeout'), timeoutMs);
    sock.once(openOn, () => done('open'));
    sock.once('error', (e) => done(e.code === 'ECONNREFUSED' ? 'refused' : `error:${e.code}`));
    start(sock, done, later);
  });
}

function probeTcp(host, port, timeoutMs) {
  return probeSocket(net.connect({ host, port }), timeoutMs, 'connect', () => {});
}

function probeUdp(host, port, timeoutMs) {
  const sock = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  return probeSocket(sock, timeoutMs, 'message', (s, done, later) => {
    s.connect(port, host, () => {
      const ping = () => s.send('ping', (e) => e && done(`error:${e.code}`));
      ping();
      // One resend within the timeout rides out a neighbour-resolution hiccup.
      later(ping, Math.floor(timeoutMs / 2));
    });
  });
}

function probeSctp(host, port, timeoutMs) {
  return new Promise((resolve) => {
    const seconds = Math.max(1, Math.round(timeoutMs / 1000));
    const addr = net.isIPv6(host) ? `SCTP6-CONNECT:[${host}]:${port}` : `SCTP4-CONNECT:${host}:${port}`;
    const child = spawn('socat', ['-u', 'OPEN:/dev/null', `${addr},connect-timeout=${seconds}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 1000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? 'open' : /refused/i.test(stderr) ? 'refused' : 'timeout');
    });
  });
}

const PROBES = { TCP: probeTcp, UDP: probeUdp, SCTP: probeSctp };

async function main() {
  for (const port of config.ports ?? [])
    for (const host of hosts) {
      await listenTcp(port, host);
      await listenUdp(port, host);
      if (config.sctp) await listenSctp(port, host);
    }
  say({ ready: true });
  const rl = readline.createInterface({ input: process.stdin });
  rl.on('line', async (line) => {
    const req = JSON.parse(line);
    const results = await Promise.all(req.probes.map((p) => PROBES[p.protocol](p.host, p.port, req.timeoutMs)));
    say({ id: req.id, results });
  });
  // The parent closing stdin is the signal to stop.
  rl.on('close', () => {
    for (const c of children) c.kill('SIGKILL');
    process.exit(0);
  });
}

main().catch((e) => {
  say({ fatal: String(e?.stack ?? e) });
  process.exit(1);
});
