import type { EmitEvent, WaterfallEvent } from '@deepseek-ai/dsh-context'

export interface Greeter {
  greet(name: string): string
}

declare module '@deepseek-ai/dsh-context' {
  interface Services {
    greeter?: Greeter
    counter?: { readonly scopeName: string }
  }
  interface Events {
    'test/said': EmitEvent<[text: string]>
    'test/transform': WaterfallEvent<[value: number], number>
    'test/pair': WaterfallEvent<[a: number, b: number], string>
  }
}
