// The kernel release and HZ a figure was made on, for the docs.
import { readFileSync } from "node:fs";
export function uname() {
  const rel = readFileSync("/proc/sys/kernel/osrelease", "utf8").trim();
  return `Linux ${rel}`;
}
