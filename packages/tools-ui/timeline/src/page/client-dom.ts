/**
 * The few DOM members the page script uses, declared structurally so that the package type-checks
 * without the DOM library (which would make browser globals look available to all the Node code).
 */
export interface ClientRect {
  readonly left: number
  readonly top: number
  readonly right: number
  readonly bottom: number
}

export interface ClientEvent {
  readonly clientX: number
  readonly clientY: number
  readonly key?: string
}

export interface ClientElement {
  appendChild(child: ClientElement): unknown
  setAttribute(name: string, value: string): void
  addEventListener(type: string, listener: (event: ClientEvent) => void): void
  getBoundingClientRect(): ClientRect
  textContent: string | null
  hidden: boolean
  readonly offsetWidth: number
  readonly offsetHeight: number
  readonly style: { left: string; top: string }
}

export interface ClientDocument {
  getElementById(id: string): ClientElement | null
  createElement(tag: string): ClientElement
  createElementNS(namespace: string, tag: string): ClientElement
  addEventListener(type: string, listener: (event: ClientEvent) => void): void
  readonly body: ClientElement
  readonly documentElement: { readonly clientWidth: number; readonly clientHeight: number }
  title: string
}
