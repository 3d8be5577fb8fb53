import { CALLS_SOURCE } from './prelude-calls.ts'

/**
 * Script evaluated once in each engine instance (see prepared-engine.ts), before any program. Its
 * completion value is a function the host calls once with its two host functions (`hostLog`,
 * `hostSettle`) and the sources of its parts (prelude-parts.ts: the full and the quick encoder,
 * `show`, the random generator); it
 * captures every built-in it needs, installs `console` and a seeded `Math.random`, and returns
 * `[setup, start, describe, prefix, settleCalls, takeCalls]`. The host then copies the engine's
 * memory, and every run starts from that copy: `setup(namesJson, maxBindingCalls, valueBytes,
 * seed0, seed1, seed2, seed3)` installs the run's `tools` and seeds `Math.random` (the engine's own
 * generator would repeat itself from the copy), then `start(program)` runs the program.
 * `describe(error)` is `[kind, message, line, column]`: where the program threw, from the first
 * frame of `program.js` in the error's stack (the host decides whether those are the program's own
 * positions).
 *
 * A binding call is checked (the run still going, `maxBindingCalls`, `valueBytes`), queued in
 * program order with its argument's JSON text, and returns a promise whose settle functions stay in
 * the prelude (its part in prelude-calls.ts, embedded here as a string and compiled like the other
 * parts). After each turn of the program the host takes the queued calls it has room for with one
 * `takeCalls(room, budget)`, and settles the calls it has answers for with one
 * `settleCalls(text)` per batch (one flat JSON list it built, see answer-entry.ts: `index, 1, value`,
 * `index, 2` or `index, 0, name, message, code` per answer): a call costs the engine no host call,
 * handle or string of its own.
 *
 * The host functions stay in this closure: the program only ever reaches the wrappers. Every
 * built-in the prelude needs is captured before any program runs, so a program that replaces
 * `JSON`, `Promise.prototype.then` or `Array.prototype.push` changes its own behaviour only.
 * Whatever the prelude sends out is re-checked by the host anyway: it is code inside the sandbox.
 *
 * Kept as plain ES2020 text (not compiled TypeScript) so the exact source that runs is the source
 * that is reviewed.
 */
export const PRELUDE_SOURCE = String.raw`(function (hostLog, hostSettle, encoderSource, quickEncoderSource, showSource, randomSource) {
  'use strict';
  var global = globalThis;
  var apply = Reflect.apply;
  var ownKeys = Reflect.ownKeys;
  var getProto = Object.getPrototypeOf;
  var objectKeys = Object.keys;
  var defineProperty = Object.defineProperty;
  var getOwnDescriptor = Object.getOwnPropertyDescriptor;
  var freeze = Object.freeze;
  var create = Object.create;
  var setProto = Object.setPrototypeOf;
  var splice = Array.prototype.splice;
  var isArray = Array.isArray;
  var ObjectProto = Object.prototype;
  var ArrayProto = Array.prototype;
  var stringify = JSON.stringify;
  var parse = JSON.parse;
  var isFiniteNumber = Number.isFinite;
  var push = ArrayProto.push;
  var pop = ArrayProto.pop;
  var join = ArrayProto.join;
  var SetCtor = Set;
  var setHas = Set.prototype.has;
  var setAdd = Set.prototype.add;
  var setDelete = Set.prototype.delete;
  var stringSlice = String.prototype.slice;
  var regexpTest = RegExp.prototype.test;
  var regexpExec = RegExp.prototype.exec;
  var StringCtor = String;
  var symbolToString = Symbol.prototype.toString;
  var then = Promise.prototype.then;
  var PromiseCtor = Promise;
  var promiseReject = Promise.reject;
  var ErrorCtor = Error;
  var TypeErrorCtor = TypeError;
  var FunctionCtor = Function;
  var MathObject = Math;
  var imul = Math.imul;
  var IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  var INDEX = /^(?:0|[1-9][0-9]*)$/;
  var PROGRAM_FRAME = /program\.js:([0-9]{1,9}):([0-9]{1,9})/;
  var MAX_DEPTH = 1000;
  var MAX_MESSAGE = 2000;
  var PATH_HEAD = 60;
  var PATH_TAIL = 40;
  var SHOW_DEPTH = 3;
  var SHOW_ITEMS = 100;
  // Separators of the text takeCalls answers: a JSON text never holds these characters raw.
  var RECORD = '\u0001';
  var FIELD = '\u0002';

  function test(re, s) { return apply(regexpTest, re, [s]); }
  function slice(s, from, to) { return apply(stringSlice, s, [from, to]); }
  function add(list, item) { apply(push, list, [item]); }
  function reject(error) { return apply(promiseReject, PromiseCtor, [error]); }
  function keySegment(key) {
    return typeof key === 'number' ? '[' + key + ']' : test(IDENTIFIER, key) ? '.' + key : '[' + stringify(key) + ']';
  }
  function toolLabel(name) { return 'tools' + keySegment(name); }
  function instanceName(value) {
    try {
      var ctor = getProto(value).constructor;
      var name = typeof ctor === 'function' ? ctor.name : undefined;
      return typeof name === 'string' && name !== '' ? name : 'object';
    } catch (e) { return 'object'; }
  }
  function cap(text) { return text.length > MAX_MESSAGE ? slice(text, 0, MAX_MESSAGE) + '…' : text; }

  // ---- the full encoder and show, compiled from their own sources, handed what they need ----
  function compile(source) { return FunctionCtor('return ' + source)(); }
  var encoderPart = compile(encoderSource)(apply, ownKeys, getProto, getOwnDescriptor, isArray,
    ObjectProto, ArrayProto, stringify, isFiniteNumber, pop, join, SetCtor, setHas, setAdd, setDelete,
    test, add, keySegment, instanceName, INDEX, MAX_DEPTH, PATH_HEAD, PATH_TAIL);
  var showPart = compile(showSource)(apply, ownKeys, getProto, isArray, ObjectProto, stringify, join,
    setHas, setAdd, setDelete, symbolToString, StringCtor, ErrorCtor, test, add, instanceName,
    errorText, IDENTIFIER, SHOW_DEPTH, SHOW_ITEMS);
  function show(value, depth, seen) {
    try { return showPart.show(value, depth, seen); } catch (e) { return '[unprintable]'; }
  }

  // plain values in one recursive pass, anything else handed to the full encoder
  var encode = compile(quickEncoderSource)(stringify, getProto, isArray, ArrayProto, ObjectProto,
    objectKeys, ownKeys, create, encoderPart);
  // What the encoder threw, as the program sees it: a value that is not JSON is a TypeError naming
  // what and where; anything else (a getter that threw, out of memory) as it was thrown.
  function encodeError(e, what) {
    return encoderPart.isNotJson(e) ? new TypeErrorCtor(what + ' is not JSON: ' + encoderPart.notJsonText(e)) : e;
  }

  // ---- describing values for logs and errors (bounded, never throws) ----
  function errorText(error) {
    var name, message;
    try { name = error.name; } catch (e) { name = undefined; }
    try { message = error.message; } catch (e) { message = undefined; }
    name = typeof name === 'string' && name !== '' ? name : 'Error';
    message = typeof message === 'string' ? message : message === undefined ? '' : show(message, 1, new SetCtor());
    return message === '' ? name : name + ': ' + message;
  }
  function isResourceError(error) {
    try {
      if (error === null || typeof error !== 'object') return false;
      var message = error.message;
      return message === 'out of memory' || message === 'stack overflow' || message === 'string too long';
    } catch (e) { return false; }
  }
  // [line, column] of the first frame of the program in an error's stack, or [].
  function where(error) {
    try {
      var stack = error.stack;
      if (typeof stack !== 'string') return [];
      var match = apply(regexpExec, PROGRAM_FRAME, [stack]);
      return match === null ? [] : [+match[1], +match[2]];
    } catch (e) { return []; }
  }
  // [kind, message, line, column] for a thrown value.
  function describe(error) {
    var kind = isResourceError(error) ? 'memory' : 'exception';
    var text;
    var position = [];
    try {
      if (error instanceof ErrorCtor) {
        text = errorText(error);
        position = where(error);
      } else text = 'Uncaught ' + show(error, 1, new SetCtor());
    } catch (e) { text = 'Uncaught exception (it could not be described)'; }
    return [kind, cap(text), position[0], position[1]];
  }

  // ---- tools, console and the run itself ----
  // binding calls (prelude-calls.ts): checked, queued and settled inside the sandbox
  var calls = compile(${JSON.stringify(CALLS_SOURCE)})(apply, setProto, splice, join, defineProperty,
    freeze, PromiseCtor, ErrorCtor, TypeErrorCtor, reject, toolLabel, encode, encodeError, parse, FIELD, RECORD);
  // Math.random of the run, seeded by setup: the engine's own would repeat itself from the copy
  var generator = compile(randomSource)(imul);
  defineProperty(MathObject, 'random', { value: generator.random, enumerable: false, writable: true, configurable: true });
  function setup(namesJson, maxBindingCalls, maxValueBytes, seed0, seed1, seed2, seed3) {
    calls.limit(maxBindingCalls, maxValueBytes);
    generator.seed(seed0, seed1, seed2, seed3);
    var names = parse(namesJson);
    var tools = create(null);
    for (var n = 0; n < names.length; n++) {
      defineProperty(tools, names[n], { value: calls.makeBinding(names[n], n), enumerable: true });
    }
    freeze(tools);
    defineProperty(global, 'tools', { value: tools, enumerable: false, writable: false, configurable: false });
  }
  var levels = ['log', 'info', 'warn', 'error', 'debug'];
  var consoleObject = {};
  function makeLog(level) {
    return function () {
      var parts = [];
      for (var i = 0; i < arguments.length; i++) {
        var item = arguments[i];
        add(parts, typeof item === 'string' ? item : show(item, 0, new SetCtor()));
      }
      hostLog(level, apply(join, parts, [' ']));
    };
  }
  for (var l = 0; l < levels.length; l++) consoleObject[levels[l]] = makeLog(levels[l]);
  defineProperty(global, 'console', { value: consoleObject, enumerable: false, writable: true, configurable: true });

  function settleValue(value) {
    calls.end();
    var text;
    try { text = encode(value); } catch (e) {
      if (encoderPart.isNotJson(e)) {
        hostSettle('invalid-output', 'the returned value is not JSON: ' + encoderPart.notJsonText(e));
        return;
      }
      var described = describe(e);
      hostSettle(described[0], described[1], described[2], described[3]);
      return;
    }
    hostSettle('value', text);
  }
  function settleError(error) {
    calls.end();
    var described = describe(error);
    hostSettle(described[0], described[1], described[2], described[3]);
  }
  function start(program) {
    var promise;
    try { promise = program(); } catch (e) { settleError(e); return; }
    try { apply(then, promise, [settleValue, settleError]); } catch (e) { settleValue(promise); }
  }
  function prefix(text, length) { return slice(text, 0, length); }
  return [setup, start, describe, prefix, calls.settleCalls, calls.takeCalls];
})`
