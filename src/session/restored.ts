/**
 * How many messages resuming a session restores: the count a session picker
 * shows, which must equal what `resumed N message(s)` says afterwards. The
 * number of message rows in the file is not it: a compaction row replaces
 * the rows before its kept_from with one summary, empty and unusable rows
 * are skipped, tool pairing is repaired (orphan results dropped, stub
 * results added) and the resume budget may leave the oldest rows out. So
 * this runs the loader itself (load.ts, read-only, bounded memory) and
 * caches the answer in the session's index (index-file.ts) for the file's
 * current size; the next listing of an unchanged file reads no row.
 */
import { fstatSync } from "node:fs";
import { withRegularFile } from "../common/regular-file.ts";
import { indexWriterPid, readIndex, writeIndex } from "./index-file.ts";
import { loadSessionFd } from "./load.ts";

/** Messages a resume of `path` restores now; undefined when it is not a readable session. */
export function restoredMessageCount(path: string): number | undefined {
  return withRegularFile(path, undefined, (fd) => {
    const size = fstatSync(fd).size;
    const index = readIndex(path, fd);
    if (index?.restoredMessages !== undefined && index.size === size) return index.restoredMessages;
    const loaded = loadSessionFd(fd, path, { repair: false });
    const count = loaded.messages.length;
    // Cached only for a file that ends with a whole line (a torn tail is cut by the next resume).
    if (loaded.size === size) {
      const writerPid = indexWriterPid(path);
      writeIndex(path, fd, { size, summary: loaded.summary, restoredMessages: count, ...(writerPid !== undefined ? { writerPid } : {}) });
    }
    return count;
  });
}
