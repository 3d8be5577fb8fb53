import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { evaluateExpression, MAX_EXPRESSION_LENGTH } from './evaluate-expression.ts'

/** `calculate`: arithmetic on a string expression (see `evaluateExpression`); parallel-safe. */
export function calculateTool() {
  return defineTool({
    // the limits below (string lengths) are outside strict function calling's subset
    strict: false,
    name: 'calculate',
    description:
      'Evaluate an arithmetic expression given as a string: + - * / % ^, parentheses, pi, e, sqrt, abs, floor, ceil, round, min, max.',
    parameters: z.object({ expression: z.string().min(1).max(MAX_EXPRESSION_LENGTH) }),
    isConcurrencySafe: () => true,
    presentCall: ({ expression }) => `calculate ${expression}`,
    execute: ({ expression }) => `${expression} = ${evaluateExpression(expression)}`,
  })
}
