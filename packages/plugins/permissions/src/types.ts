import type { LayerName, PermissionDecision, PermissionRule } from './rules/rule-schema.ts'

/**
 * What rules are matched against: a tool name and its arguments as the pipeline hands them to
 * `tools/pre-execute` listeners. `args` is read defensively (it may hold values a zod transform
 * made, getters that throw, proxies); a `ToolCallInfo` is one.
 */
export interface PermissionCall {
  readonly toolName: string
  readonly args: unknown
}

/** What the rules say about a call; `deny` and `ask` are `tools/pre-execute` decisions as they are. */
export type PermissionVerdict =
  | { readonly type: 'allow' }
  | { readonly type: 'deny'; readonly reason: string }
  | { readonly type: 'ask'; readonly reason: string }

/**
 * One thing a call touches, decided on its own: a path argument, one simple command of a shell
 * command line, a URL argument, an argument that could not be read, or — for a call with none of
 * these — the call.
 */
export type PermissionSubject =
  | { readonly kind: 'call' }
  | {
      readonly kind: 'path'
      readonly argument: string
      /** As given. */
      readonly value: string
      /** Absolute, lexically normalized: what globs are compared with. */
      readonly normalized: string
      /**
       * With `followSymlinks`, where the path leads once links are followed (when that differs):
       * a deny or ask rule matching either path applies; an allow rule must match both.
       */
      readonly resolved?: string
    }
  | {
      readonly kind: 'command'
      readonly argument: string
      /** The text of this simple command. */
      readonly value: string
      /** Its words after quote removal (assignments first; a word the shell computes as written). */
      readonly words: readonly string[]
      /** Why allow rules cannot vouch for it, or null. */
      readonly opaque: string | null
      /**
       * Why it may run code its text does not show (a program the shell computes, `eval "$x"`,
       * arithmetic on a variable, a shell reading standard input …), or null. Every deny and ask
       * rule about commands matches a hidden command, no allow does, and it is at least asked.
       */
      readonly hidden: string | null
      /**
       * The word sequences deny and ask rules compare: the command itself and each command a
       * wrapper runs (`sudo -u root rm -rf /` is also `rm -rf /`), the program reduced to its name.
       */
      readonly readings: readonly (readonly string[])[]
    }
  | {
      readonly kind: 'url'
      readonly argument: string
      /** As given. */
      readonly value: string
      /** Its host, as the WHATWG URL parser reads it (lower case, punycode): what domains are compared with. */
      readonly host: string
    }
  | {
      readonly kind: 'unreadable'
      readonly argument: string
      readonly expected: 'path' | 'command' | 'url'
      /** What could not be read, e.g. `an instance of Date is not a path`. */
      readonly problem: string
    }

/** The values a matching rule was compared with, normalized as the engine compared them. */
export type ComparedValues =
  | { readonly kind: 'tool'; readonly toolName: string; readonly toolGlob: string }
  | {
      readonly kind: 'path'
      readonly toolName: string
      readonly toolGlob: string
      readonly path: string
      readonly glob: string
      readonly normalizedGlob: string
    }
  | {
      readonly kind: 'command'
      readonly toolName: string
      readonly toolGlob: string
      /** The command's words as this rule read them (deny and ask rules look past `sudo`, `env`, …). */
      readonly words: readonly string[]
      readonly prefix: readonly string[]
      readonly match: 'prefix' | 'exact'
    }
  | {
      readonly kind: 'pattern'
      readonly toolName: string
      readonly toolGlob: string
      /** The command's words as this rule read them. */
      readonly words: readonly string[]
      /** The Claude Code command pattern (`npm run test *`). */
      readonly pattern: string
    }
  | {
      readonly kind: 'domain'
      readonly toolName: string
      readonly toolGlob: string
      readonly host: string
      readonly domain: string
    }
  | {
      readonly kind: 'unreadable'
      readonly toolName: string
      readonly toolGlob: string
      readonly problem: string
    }

/** A rule that matched a subject: where it is, what it says, and why it matched. */
export interface RuleMatch {
  readonly layer: LayerName
  readonly index: number
  readonly rule: PermissionRule
  readonly decision: PermissionDecision
  /** One sentence, e.g. `path "/repo/.env" matches ".env" (normalized "/repo/.env")`. */
  readonly why: string
  readonly compared: ComparedValues
  /**
   * For a rule with parameter conditions (`Agent(model:opus)`): each parameter, the value the call
   * set (null: not set, or not a string, number or boolean) and the rule's pattern.
   */
  readonly parameters?: readonly {
    readonly name: string
    readonly value: string | null
    readonly pattern: string
  }[]
}

export interface SubjectExplanation {
  readonly subject: PermissionSubject
  readonly decision: PermissionDecision
  /** The rule whose decision stands, or null when no rule matched and the default decided. */
  readonly decidedBy: RuleMatch | null
  /** The rule that decides in each layer for this subject (null: none matched). */
  readonly layers: { readonly [L in LayerName]: RuleMatch | null }
}

/** `explain(call)`: the whole decision, as plain JSON a UI can show. */
export interface PermissionExplanation {
  readonly toolName: string
  readonly decision: PermissionDecision
  /** The sentence a deny or ask hands to the pipeline (for allow, why it is allowed). */
  readonly reason: string
  /** Index in `subjects` of the subject that set the decision. */
  readonly decisiveSubject: number
  readonly subjects: readonly SubjectExplanation[]
}

/** The run-time layer, e.g. for an approval UI that remembers "always allow this". */
export interface SessionRules {
  /** The session layer now, in order. */
  list(): readonly PermissionRule[]
  /**
   * Validates and adds a rule (at the end, or at index `at`); returns a function that removes
   * exactly that rule again (idempotent). Throws `INVALID_RULE` naming the field.
   */
  add(rule: PermissionRule, options?: { readonly at?: number }): () => void
  /** Replaces the whole layer; every rule is validated first, so a bad one changes nothing. */
  replace(rules: readonly PermissionRule[]): void
  clear(): void
}

export interface PermissionEngine {
  /** The decision for a call; the hot path (no explanation is built). Pure; never throws. */
  decide(call: PermissionCall): PermissionVerdict
  /** The same decision with every layer's match for every subject, for a UI. Pure; never throws. */
  explain(call: PermissionCall): PermissionExplanation
  /** Every layer's rules now. */
  rules(): { readonly [L in LayerName]: readonly PermissionRule[] }
  readonly session: SessionRules
}
