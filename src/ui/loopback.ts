/**
 * Whether `host` names the loopback interface: `localhost`, `::1` or an
 * address in 127.0.0.0/8. Other hosts are reachable from the network.
 */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
