import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core'

/**
 * The UTF-16 length of a sandbox string, read without copying the string out: a string longer
 * than a budget is refused (or cut inside the sandbox) before the host holds any of it.
 */
export function stringLength(vm: QuickJSContext, handle: QuickJSHandle): number {
  const length = vm.getProp(handle, 'length')
  const units = vm.typeof(length) === 'number' ? vm.getNumber(length) : 0
  length.dispose()
  return units
}
