/**
 * Remembers the chosen theme as config.json's `theme` field, through
 * updateConfigFile (common/config-write.ts): every other field kept, the
 * file replaced atomically, a missing file created, a broken one left
 * untouched. The failure is returned as text naming the file.
 */
import { updateConfigFile } from "../common/config-write.ts";
import { errorMessage } from "../common/errors.ts";

export async function rememberTheme(configFile: string, name: string): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    await updateConfigFile(configFile, { theme: name });
    return { ok: true };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}
