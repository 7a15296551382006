// The page state in the URL hash, so a link reproduces a run:
//
//   #family=throttle&scenario=iomax-demo&seed=1&v=6.18&fix=a,b&dev=hdd&vs=6.12&vsfix=a&edit=<...>
//
// `vs`/`vsfix` turn on the side-by-side comparison (version and fixes of the
// second run). `edit` holds the edited files (JSON name -> text), deflated
// (CompressionStream "deflate-raw") and base64url-encoded; absent when the
// scenario runs as built in. Only the hash changes, so no request is made.
//
// decodeState lists what it could not read in `problems` (a seed that is not
// a whole number, edits that do not inflate): the page says so instead of
// quietly running something other than the link.

export interface PageState {
  family: string;
  scenario: string;
  seed: number;
  version: string;
  fixes: string[];
  /** device preset replacing the scenario's device */
  device?: string;
  /** comparison run, if any */
  vs?: { version: string; fixes: string[] };
  files?: Record<string, string>;
}

export async function encodeState(s: PageState): Promise<string> {
  const p = new URLSearchParams();
  p.set("family", s.family);
  p.set("scenario", s.scenario);
  p.set("seed", String(s.seed));
  p.set("v", s.version);
  if (s.fixes.length) p.set("fix", s.fixes.join(","));
  if (s.device) p.set("dev", s.device);
  if (s.vs) {
    p.set("vs", s.vs.version);
    if (s.vs.fixes.length) p.set("vsfix", s.vs.fixes.join(","));
  }
  if (s.files) p.set("edit", await deflate(JSON.stringify(s.files)));
  return "#" + p.toString();
}

export async function decodeState(hash: string): Promise<Partial<PageState> & { problems: string[] }> {
  const p = new URLSearchParams(hash.replace(/^#/, ""));
  const out: Partial<PageState> & { problems: string[] } = { problems: [] };
  const fam = p.get("family"), sc = p.get("scenario"), seed = p.get("seed"), v = p.get("v");
  if (fam) out.family = fam;
  if (sc) out.scenario = sc;
  if (seed !== null && /^\d+$/.test(seed) && Number.isSafeInteger(Number(seed))) out.seed = Number(seed);
  else if (seed !== null) out.problems.push(`the seed "${seed}" is not a whole number from 0 to 2^53 − 1`);
  if (v) out.version = v;
  out.fixes = (p.get("fix") ?? "").split(",").filter(Boolean);
  const dev = p.get("dev");
  if (dev) out.device = dev;
  const vs = p.get("vs");
  if (vs) out.vs = { version: vs, fixes: (p.get("vsfix") ?? "").split(",").filter(Boolean) };
  const edit = p.get("edit");
  if (edit) {
    try {
      const files = JSON.parse(await inflate(edit));
      if (files && typeof files === "object") out.files = files as Record<string, string>;
      else throw new Error("not an object");
    } catch {
      // a damaged link: the rest still runs, and the page says the edits were lost
      out.problems.push("the edited files could not be read (the link is cut or damaged); the built-in files are used");
    }
  }
  return out;
}

async function pipe(bytes: Uint8Array, t: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(t);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function deflate(text: string): Promise<string> {
  const z = await pipe(new TextEncoder().encode(text), new CompressionStream("deflate-raw"));
  let bin = "";
  z.forEach((b) => (bin += String.fromCharCode(b)));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export async function inflate(b64: string): Promise<string> {
  const bin = atob(b64.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(await pipe(bytes, new DecompressionStream("deflate-raw")));
}
