/**
 * `/login [provider]` and `/logout [provider|all]` (login-dialog.ts): store
 * or remove an API key in auth.json through dialogs, and make the running
 * agent use what now applies. Both wait until their dialogs close.
 */
import type { BuiltinCommand } from "../command-types.ts";
import { runLogin, runLogout } from "../login-dialog.ts";

export const LOGIN_COMMAND: BuiltinCommand = {
  name: "login",
  usage: "/login [provider]",
  description: "store an API key (anthropic, openai) in auth.json",
  immediate: false,
  run: (host, args, signal) => runLogin(host, args.trim().toLowerCase(), { signal }),
};

export const LOGOUT_COMMAND: BuiltinCommand = {
  name: "logout",
  usage: "/logout [provider|all]",
  description: "remove a stored API key from auth.json",
  immediate: false,
  run: (host, args, signal) => runLogout(host, args.trim().toLowerCase(), signal),
};
