// Cgroup writeback ownership: buffered writes from several cgroups to shared
// inodes, and which cgroup the flusher charges (owner switches). Needs the
// writeback capability; its built-in scenarios come with it.
import { blockFamily, hasControlFile } from "./blockio.js";

export const writebackFamily = blockFamily({
  id: "writeback",
  title: "Writeback ownership",
  missing: async () => (hasControlFile("writeback") ? undefined : "cgroup writeback ownership is not in this build yet"),
  builtins: async () => [],
});
