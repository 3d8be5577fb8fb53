/**
 * Script evaluated in every fresh sandbox before the program. Its completion value is a function
 * the host calls once with its three host functions and the binding names; it installs `tools` and
 * `console` and returns `[start, describe, decode, prefix]`. `describe(error)` is
 * `[kind, message, line, column]`: where the program threw, from the first frame of `program.js`
 * in the error's stack (the host decides whether those are the program's own positions).
 *
 * The host functions stay in this closure: the program only ever reaches the wrappers. Every
 * built-in the prelude needs is captured before the program runs, so a program that replaces
 * `JSON`, `Promise.prototype.then` or `Array.prototype.push` changes its own behaviour only.
 * Whatever the prelude sends out is re-checked by the host anyway: it is code inside the sandbox.
 *
 * Kept as plain ES2020 text (not compiled TypeScript) so the exact source that runs is the source
 * that is reviewed.
 */
export const PRELUDE_SOURCE = String.raw`(function (hostCall, hostLog, hostSettle, namesJson) {
  'use strict';
  var global = globalThis;
  var apply = Reflect.apply;
  var ownKeys = Reflect.ownKeys;
  var getProto = Object.getPrototypeOf;
  var defineProperty = Object.defineProperty;
  var getOwnDescriptor = Object.getOwnPropertyDescriptor;
  var freeze = Object.freeze;
  var create = Object.create;
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
  var IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  var INDEX = /^(?:0|[1-9][0-9]*)$/;
  var PROGRAM_FRAME = /program\.js:([0-9]{1,9}):([0-9]{1,9})/;
  var MAX_DEPTH = 1000;
  var MAX_MESSAGE = 2000;
  var PATH_HEAD = 60;
  var PATH_TAIL = 40;
  var SHOW_DEPTH = 3;
  var SHOW_ITEMS = 100;

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

  // ---- lossless JSON encoding, iterative (deep values must not exhaust any stack) ----
  // path: the segments of where the problem is ('$', '.a', '[0]', ...)
  function NotJson(path, reason) { this.path = path; this.reason = reason; }
  function pathOf(frames, key) {
    var parts = ['$'];
    for (var i = 1; i < frames.length; i++) add(parts, keySegment(frames[i].key));
    if (key !== undefined) add(parts, keySegment(key));
    return parts;
  }
  // "$.a is a function"; a path too long to read (a value nested 1,000 levels deep has one of
  // thousands of characters, longer than any message may be) goes after the reason, its middle cut
  // out at segment boundaries, so the reason is never what a cap cuts off.
  function notJsonText(e) {
    var parts = e.path;
    var length = 0;
    for (var i = 0; i < parts.length; i++) length += parts[i].length;
    if (length <= PATH_HEAD + PATH_TAIL) return apply(join, parts, ['']) + ' ' + e.reason;
    var head = [];
    var used = 0;
    var first = 0;
    while (first < parts.length - 1 && used + parts[first].length <= PATH_HEAD) {
      used += parts[first].length;
      add(head, parts[first]);
      first++;
    }
    var last = parts.length;
    used = 0;
    while (last > first && used + parts[last - 1].length <= PATH_TAIL) used += parts[--last].length;
    var tail = [];
    for (var j = last; j < parts.length; j++) add(tail, parts[j]);
    return 'it ' + e.reason + ' (at ' + apply(join, head, ['']) + '…' + apply(join, tail, ['']) + ')';
  }
  function primitiveProblem(value) {
    switch (typeof value) {
      case 'function': return 'is a function';
      case 'symbol': return 'is a symbol';
      case 'bigint': return 'is a BigInt';
      case 'undefined': return 'is undefined';
      case 'number':
        if (value !== value) return 'is NaN';
        if (!isFiniteNumber(value)) return value > 0 ? 'is Infinity' : 'is -Infinity';
    }
    return undefined;
  }
  // frames[0] is the root container; each later frame knows its key in the one before it.
  // Own string keys of a plain object or the indices of a dense array; throws on anything else.
  function entriesOf(value, frames, key, ancestors) {
    if (apply(setHas, ancestors, [value])) throw new NotJson(pathOf(frames, key), 'is a cycle (it contains itself)');
    var array = isArray(value);
    var proto = getProto(value);
    if (array ? proto !== ArrayProto : proto !== ObjectProto && proto !== null) {
      throw new NotJson(pathOf(frames, key), 'is ' + (array ? 'an array subclass' : 'an instance of ' + instanceName(value)) + ', not plain JSON');
    }
    var keys = ownKeys(value);
    var length = array ? value.length : 0;
    var names = [];
    for (var i = 0; i < keys.length; i++) {
      var k = keys[i];
      if (typeof k === 'symbol') throw new NotJson(pathOf(frames, key), 'has a symbol-keyed property');
      if (array && (k === 'length' || test(INDEX, k))) continue;
      if (array) throw new NotJson(pathOf(frames, key), 'is an array with an extra property ' + stringify(k));
      var descriptor = getOwnDescriptor(value, k);
      if (descriptor !== undefined && !descriptor.enumerable) {
        throw new NotJson(pathOf(frames, key), 'has a non-enumerable property ' + stringify(k));
      }
      add(names, k);
    }
    if (array) {
      for (var j = 0; j < length; j++) {
        if (getOwnDescriptor(value, '' + j) === undefined) throw new NotJson(pathOf(frames, key), 'is a sparse array (hole at index ' + j + ')');
      }
    }
    return { value: value, key: key, array: array, names: names, length: array ? length : names.length, next: 0, written: 0 };
  }
  function encode(root) {
    if (root === undefined) return undefined;
    var out = [];
    var frames = [];
    var ancestors = new SetCtor();
    function write(value, key) {
      if (value === null || typeof value === 'boolean' || typeof value === 'string') { add(out, stringify(value)); return; }
      var problem = primitiveProblem(value);
      if (problem !== undefined) throw new NotJson(pathOf(frames, key), problem);
      if (typeof value === 'number') { add(out, stringify(value)); return; }
      if (frames.length >= MAX_DEPTH) throw new NotJson(pathOf(frames, key), 'nests deeper than ' + MAX_DEPTH + ' levels');
      var frame = entriesOf(value, frames, key, ancestors);
      apply(setAdd, ancestors, [value]);
      add(frames, frame);
      add(out, frame.array ? '[' : '{');
    }
    write(root, undefined);
    while (frames.length > 0) {
      var top = frames[frames.length - 1];
      if (top.next === top.length) {
        add(out, top.array ? ']' : '}');
        apply(pop, frames, []);
        apply(setDelete, ancestors, [top.value]);
        continue;
      }
      var index = top.next++;
      var key = top.array ? index : top.names[index];
      var child = top.value[key];
      if (!top.array && child === undefined) continue;
      if (top.written++ > 0) add(out, ',');
      if (!top.array) add(out, stringify(key) + ':');
      write(child, key);
    }
    return apply(join, out, ['']);
  }
  function encodeOrThrow(value, what) {
    try { return encode(value); } catch (e) {
      if (e instanceof NotJson) throw new TypeErrorCtor(what + ' is not JSON: ' + notJsonText(e));
      throw e;
    }
  }

  // ---- describing values for logs and errors (bounded, never throws) ----
  function show(value, depth, seen) {
    try {
      switch (typeof value) {
        case 'string': return depth === 0 ? value : stringify(value);
        case 'number': return value === 0 && 1 / value < 0 ? '-0' : StringCtor(value);
        case 'bigint': return StringCtor(value) + 'n';
        case 'boolean': return value ? 'true' : 'false';
        case 'undefined': return 'undefined';
        case 'symbol': return apply(symbolToString, value, []);
        case 'function':
          var fname = value.name;
          return typeof fname === 'string' && fname !== '' ? '[Function: ' + fname + ']' : '[Function (anonymous)]';
      }
      if (value === null) return 'null';
      if (value instanceof ErrorCtor) return errorText(value);
      if (apply(setHas, seen, [value])) return '[Circular]';
      var array = isArray(value);
      if (depth >= SHOW_DEPTH) return array ? '[Array]' : '[' + instanceName(value) + ']';
      apply(setAdd, seen, [value]);
      var parts = [];
      if (array) {
        var length = value.length;
        for (var i = 0; i < length && i < SHOW_ITEMS; i++) add(parts, show(value[i], depth + 1, seen));
        if (length > SHOW_ITEMS) add(parts, '… ' + (length - SHOW_ITEMS) + ' more');
      } else {
        var keys = ownKeys(value);
        for (var j = 0; j < keys.length && j < SHOW_ITEMS; j++) {
          var k = keys[j];
          var label = typeof k === 'symbol' ? '[' + apply(symbolToString, k, []) + ']' : test(IDENTIFIER, k) ? k : stringify(k);
          add(parts, label + ': ' + show(value[k], depth + 1, seen));
        }
        if (keys.length > SHOW_ITEMS) add(parts, '… ' + (keys.length - SHOW_ITEMS) + ' more');
      }
      apply(setDelete, seen, [value]);
      var body = apply(join, parts, [', ']);
      if (array) return '[' + body + ']';
      var proto = getProto(value);
      var prefix = proto === ObjectProto || proto === null ? '' : instanceName(value) + ' ';
      return prefix + (parts.length === 0 ? '{}' : '{ ' + body + ' }');
    } catch (e) { return '[unprintable]'; }
  }
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
  var names = parse(namesJson);
  var tools = create(null);
  function makeBinding(name) {
    var label = toolLabel(name);
    var binding = function () {
      if (arguments.length > 1) {
        return reject(new TypeErrorCtor(label + ' takes one argument (a JSON value), got ' + arguments.length));
      }
      var text;
      try { text = encodeOrThrow(arguments[0], label + ': the argument'); } catch (e) { return reject(e); }
      return hostCall(name, text);
    };
    defineProperty(binding, 'name', { value: label });
    return freeze(binding);
  }
  for (var n = 0; n < names.length; n++) {
    defineProperty(tools, names[n], { value: makeBinding(names[n]), enumerable: true });
  }
  freeze(tools);
  defineProperty(global, 'tools', { value: tools, enumerable: false, writable: false, configurable: false });

  var levels = ['log', 'info', 'warn', 'error', 'debug'];
  var consoleObject = {};
  function makeLog(level) {
    return function () {
      var parts = [];
      for (var i = 0; i < arguments.length; i++) add(parts, show(arguments[i], 0, new SetCtor()));
      hostLog(level, apply(join, parts, [' ']));
    };
  }
  for (var l = 0; l < levels.length; l++) consoleObject[levels[l]] = makeLog(levels[l]);
  defineProperty(global, 'console', { value: consoleObject, enumerable: false, writable: true, configurable: true });

  function settleValue(value) {
    var text;
    try { text = encode(value); } catch (e) {
      if (e instanceof NotJson) { hostSettle('invalid-output', 'the returned value is not JSON: ' + notJsonText(e)); return; }
      var described = describe(e);
      hostSettle(described[0], described[1], described[2], described[3]);
      return;
    }
    hostSettle('value', text);
  }
  function settleError(error) {
    var described = describe(error);
    hostSettle(described[0], described[1], described[2], described[3]);
  }
  function start(program) {
    var promise;
    try { promise = program(); } catch (e) { settleError(e); return; }
    try { apply(then, promise, [settleValue, settleError]); } catch (e) { settleValue(promise); }
  }
  function decode(text) { return parse(text); }
  function prefix(text, length) { return slice(text, 0, length); }
  return [start, describe, decode, prefix];
})`
