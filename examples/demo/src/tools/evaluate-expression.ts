/** Longest expression and deepest nesting the calculator accepts. */
export const MAX_EXPRESSION_LENGTH = 200
const MAX_DEPTH = 32

const FUNCTIONS: Readonly<Record<string, (...args: number[]) => number>> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  floor: Math.floor,
  ceil: Math.ceil,
  round: Math.round,
  min: Math.min,
  max: Math.max,
}
const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E }

type Token =
  | { readonly kind: 'number'; readonly value: number; readonly at: number }
  | { readonly kind: 'name'; readonly name: string; readonly at: number }
  | { readonly kind: 'op'; readonly op: string; readonly at: number }

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  const pattern =
    /(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z]+)|(\*\*|[-+*/%^(),]))/y
  let at = 0
  for (;;) {
    while (at < source.length && /\s/.test(source[at]!)) at += 1
    if (at >= source.length) return tokens
    pattern.lastIndex = at
    const match = pattern.exec(source)
    if (match === null) throw new Error(`unexpected ${JSON.stringify(source[at])} at position ${at + 1}`)
    if (match[1] !== undefined) tokens.push({ kind: 'number', value: Number(match[1]), at })
    else if (match[2] !== undefined) tokens.push({ kind: 'name', name: match[2].toLowerCase(), at })
    else tokens.push({ kind: 'op', op: match[3] === '**' ? '^' : match[3]!, at })
    at = pattern.lastIndex
  }
}

/**
 * Evaluates arithmetic: numbers, `+ - * / %`, `^` or `**` (right-associative, binding tighter than
 * a leading minus: `-2^2` is -4), parentheses, `pi`, `e` and sqrt, abs, floor, ceil, round, min, max.
 * A small parser, never `eval`: the model's text is data. Throws an `Error` saying what is wrong and
 * where (1-based position), or that the result is not a finite number (division by zero included).
 */
export function evaluateExpression(source: string): number {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new Error(`the expression is ${source.length} characters long; at most ${MAX_EXPRESSION_LENGTH}`)
  }
  const tokens = tokenize(source)
  let index = 0
  let depth = 0
  const peek = (): Token | undefined => tokens[index]
  const describe = (token: Token | undefined): string =>
    token === undefined
      ? 'the end of the expression'
      : `${JSON.stringify(token.kind === 'number' ? String(token.value) : token.kind === 'name' ? token.name : token.op)} at position ${token.at + 1}`
  const isOp = (op: string): boolean => {
    const token = peek()
    return token?.kind === 'op' && token.op === op
  }
  const expect = (op: string): void => {
    if (!isOp(op)) throw new Error(`expected ${JSON.stringify(op)} but found ${describe(peek())}`)
    index += 1
  }
  const nested = <T>(parse: () => T): T => {
    depth += 1
    if (depth > MAX_DEPTH) throw new Error(`the expression is nested more than ${MAX_DEPTH} levels deep`)
    try {
      return parse()
    } finally {
      depth -= 1
    }
  }

  const expression = (): number =>
    nested(() => {
      let value = term()
      while (isOp('+') || isOp('-')) {
        const op = (tokens[index++] as { op: string }).op
        value = op === '+' ? value + term() : value - term()
      }
      return value
    })
  const term = (): number => {
    let value = unary()
    while (isOp('*') || isOp('/') || isOp('%')) {
      const op = (tokens[index++] as { op: string }).op
      const right = unary()
      if ((op === '/' || op === '%') && right === 0) throw new Error('division by zero')
      value = op === '*' ? value * right : op === '/' ? value / right : value % right
    }
    return value
  }
  const unary = (): number =>
    nested(() => {
      if (isOp('-')) return (index++, -unary())
      if (isOp('+')) return (index++, unary())
      return power()
    })
  const power = (): number => {
    const base = primary()
    if (!isOp('^')) return base
    index += 1
    return base ** unary()
  }
  const primary = (): number => {
    const token = peek()
    if (token?.kind === 'number') return (index++, token.value)
    if (token?.kind === 'op' && token.op === '(') {
      index += 1
      const value = expression()
      expect(')')
      return value
    }
    if (token?.kind === 'name') {
      index += 1
      const fn = Object.hasOwn(FUNCTIONS, token.name) ? FUNCTIONS[token.name] : undefined
      if (fn !== undefined) {
        expect('(')
        const args = [expression()]
        while (isOp(',')) {
          index += 1
          args.push(expression())
        }
        expect(')')
        return fn(...args)
      }
      const constant = Object.hasOwn(CONSTANTS, token.name) ? CONSTANTS[token.name] : undefined
      if (constant !== undefined) return constant
      throw new Error(
        `unknown name ${JSON.stringify(token.name)} at position ${token.at + 1} (known: ${[...Object.keys(FUNCTIONS), ...Object.keys(CONSTANTS)].join(', ')})`,
      )
    }
    throw new Error(`expected a number, a name or "(" but found ${describe(token)}`)
  }

  if (tokens.length === 0) throw new Error('the expression is empty')
  const value = expression()
  if (index < tokens.length) throw new Error(`unexpected ${describe(peek())}`)
  if (!Number.isFinite(value)) throw new Error(`the result is not a finite number (${value})`)
  return value
}
