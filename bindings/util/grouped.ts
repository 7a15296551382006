// An integer with its digits grouped in threes by commas, as
// n.toLocaleString("en-US") writes it ("20,000,001"), without ICU: the first
// toLocaleString of a process builds ICU's number formatter, ~10 ms on this
// project's machine, which every `iosim run` paid for the events count on its
// summary's first line (a 1,000-bio run takes ~125 ms whole, node's own
// start-up ~52 ms). Anything but a safe integer (or -0, "-0") goes to
// toLocaleString, which also rounds fractions to three digits.
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString("en-US");
  const s = String(n < 0 ? -n : n);
  let out = s.slice(0, ((s.length - 1) % 3) + 1);
  for (let i = out.length; i < s.length; i += 3) out += `,${s.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}
