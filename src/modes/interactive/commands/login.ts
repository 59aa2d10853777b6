/**
 * `/login [provider]` and `/logout [provider|all]` (login-dialog.ts): store
 * or remove an API key in auth.json through dialogs, and make the running
 * agent use what now applies. The command ends once its first dialog is
 * open (the status bar shows no running operation while a dialog waits);
 * the rest happens as the user answers.
 */
import { errorMessage } from "../../../common/errors.ts";
import type { BuiltinCommand, CommandHost } from "../command-types.ts";
import { runLogin, runLogout } from "../login-dialog.ts";

/** Lets a dialog flow go on after the command returned; a failure is printed. */
export function detach(host: CommandHost, name: string, flow: Promise<void>): void {
  flow.catch((err: unknown) => host.chat.error(`/${name}: ${errorMessage(err)}`));
}

export const LOGIN_COMMAND: BuiltinCommand = {
  name: "login",
  usage: "/login [provider]",
  description: "store an API key (anthropic, openai, kimi) in auth.json",
  immediate: false,
  run: (host, args) => detach(host, "login", runLogin(host, args.trim().toLowerCase())),
};

export const LOGOUT_COMMAND: BuiltinCommand = {
  name: "logout",
  usage: "/logout [provider|all]",
  description: "remove a stored API key from auth.json",
  immediate: false,
  run: (host, args) => detach(host, "logout", runLogout(host, args.trim().toLowerCase())),
};
