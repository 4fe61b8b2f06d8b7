// How iptables-restore splits a rule line into arguments (iptables xshared.c add_param_to_argv):
// whitespace separates them; `"` opens and closes a quoted part, inside which a backslash takes
// the next character as it is. Read by the simulator, so a quoted argument (quote.ts
// iptablesQuote) is one argument, as the real tool reads it.
export function iptablesArgs(line: string): string[] {
  const out: string[] = [];
  let arg = '';
  let started = false;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '\\' && i + 1 < line.length) arg += line[++i];
      else if (c === '"') quoted = false;
      else arg += c;
    } else if (c === '"') quoted = started = true;
    else if (c === ' ' || c === '\t' || c === '\n') {
      if (started) out.push(arg);
      [arg, started] = ['', false];
    } else [arg, started] = [arg + c, true];
  }
  if (quoted) throw new Error(`iptables: unterminated quoted argument in "${line}"`);
  if (started) out.push(arg);
  return out;
}
