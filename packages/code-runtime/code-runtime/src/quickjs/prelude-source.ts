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
 * A binding call is checked here (the run still going, `maxBindingCalls`, `valueBytes`), queued
 * here in program order with its argument's JSON text, and returns a promise whose settle functions
 * stay in this closure. After each turn of the program the host takes the queued calls it has room
 * for with one `takeCalls(room, budget)`, and settles the calls it has answers for with one
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
  // set by setup for each run
  var maxCalls = 0;
  var valueBytes = 0;
  // the program has settled: a call made now is refused
  var over = false;
  // calls in program order: accepted ones get the next index, the host takes them from taken on
  var accepted = 0;
  var taken = 0;
  // A run's calls by index live in dense arrays without a prototype: QuickJS keeps such an array
  // flat, where an object's integer keys cost a shape change for every call added and deleted
  // (measured: a nested call 13 % cheaper in the worker), and no element write meets a setter
  // the program put on Array.prototype. Slot 0 of a table holds the call numbered by its "from":
  // tables are emptied when every call they hold is done, and cut at the front once their done
  // prefix is long and at least half of them, so a program that always keeps some calls going
  // never grows them past about twice what it has going.
  var CUT_AT = 1024;
  function table() { var slots = []; setProto(slots, null); return slots; }
  function cut(slots, count) { apply(splice, slots, [0, count]); }
  // the argument text of each call accepted and not taken: queued[index - queuedFrom]
  var queued = table();
  var queuedFrom = 0;
  // the resolve and reject functions of each call accepted and not answered:
  // resolvers[index - pendingFrom]; no call below lowestPending is waiting for its answer
  var resolvers = table();
  var rejecters = table();
  var pendingFrom = 0;
  var lowestPending = 0;
  // one executor for every call's promise: it hands its functions over through these
  var nextResolve, nextReject;
  function capture(resolve, fail) { nextResolve = resolve; nextReject = fail; }
  function makeBinding(name, id) {
    var label = toolLabel(name);
    // Built once per binding: a call's record is this and its argument's text.
    var recordHead = id + FIELD;
    // A rest parameter, not arguments: QuickJS builds an arguments object on every call of a
    // function that names it, which costs more than the empty rest array of a one-argument call.
    var binding = function (value, ...more) {
      if (more.length > 0) {
        return reject(new TypeErrorCtor(label + ' takes one argument (a JSON value), got ' + (more.length + 1)));
      }
      var text;
      // (the message is built only when there is one to give: this runs for every call)
      try { text = encode(value); } catch (e) { return reject(encodeError(e, label + ': the argument')); }
      if (over) return reject(new ErrorCtor(label + ': the run has already ended'));
      if (accepted >= maxCalls) {
        return reject(new ErrorCtor(label + ': the run reached its limit of ' + maxCalls + ' binding calls (limits.maxBindingCalls)'));
      }
      // a UTF-16 unit is at least one UTF-8 byte: a longer text cannot fit (the host counts bytes)
      if (text !== undefined && text.length > valueBytes) {
        return reject(new ErrorCtor(label + ': the argument is larger than ' + valueBytes + ' bytes of JSON (limits.valueBytes)'));
      }
      var index = accepted++;
      queued[index - queuedFrom] = text === undefined ? '' + id : recordHead + text;
      var promise = new PromiseCtor(capture);
      resolvers[index - pendingFrom] = nextResolve;
      rejecters[index - pendingFrom] = nextReject;
      return promise;
    };
    defineProperty(binding, 'name', { value: label });
    return freeze(binding);
  }
  // Math.random of the run, seeded by setup: the engine's own would repeat itself from the copy
  var generator = compile(randomSource)(imul);
  defineProperty(MathObject, 'random', { value: generator.random, enumerable: false, writable: true, configurable: true });
  function setup(namesJson, maxBindingCalls, maxValueBytes, seed0, seed1, seed2, seed3) {
    maxCalls = maxBindingCalls;
    valueBytes = maxValueBytes;
    generator.seed(seed0, seed1, seed2, seed3);
    var names = parse(namesJson);
    var tools = create(null);
    for (var n = 0; n < names.length; n++) {
      defineProperty(tools, names[n], { value: makeBinding(names[n], n), enumerable: true });
    }
    freeze(tools);
    defineProperty(global, 'tools', { value: tools, enumerable: false, writable: false, configurable: false });
  }
  // The next queued calls, at most room of them and past budget units of text only for the first:
  // their count, then a 'binding' or 'binding FIELD text' record each, joined by RECORD, or
  // undefined when none is queued. The records' array has no prototype, so assigning its elements
  // meets no setter the program put on Array.prototype (and costs a third of defining them).
  function takeCalls(room, budget) {
    var records = [''];
    setProto(records, null);
    var count = 0;
    var used = 0;
    while (count < room && taken < accepted && (count === 0 || used < budget)) {
      var slot = taken++ - queuedFrom;
      var record = queued[slot];
      queued[slot] = undefined;
      used += record.length;
      records[++count] = record;
    }
    var done = taken - queuedFrom;
    if (taken === accepted) {
      queued.length = 0;
      queuedFrom = taken;
    } else if (done >= CUT_AT && done * 2 >= queued.length) {
      cut(queued, done);
      queuedFrom = taken;
    }
    if (count === 0) return undefined;
    records[0] = '' + count;
    return apply(join, records, [RECORD]);
  }
  // An error as the host describes it: own name and message (and code), no stack of this prelude.
  function callError(name, message, code) {
    var error = new ErrorCtor();
    delete error.stack;
    error.name = name;
    error.message = message;
    if (code !== undefined) error.code = code;
    return error;
  }
  // Settles the answered calls listed in text: 1, or 0 when the text could not be parsed (out of
  // memory), in which case the call "only", when given, is rejected with that error. The list is
  // flat (no array per answer for the parser to build): index, 1, value (resolved with value) |
  // index, 2 (resolved with undefined) | index, 0, name, message, code or null (rejected).
  // (an index the host did not start, below pendingFrom or past the table, finds no function)
  function forget(slot) { resolvers[slot] = undefined; rejecters[slot] = undefined; }
  // After answers: empties or cuts the tables of waiting calls (see table above).
  function release() {
    while (lowestPending < accepted && resolvers[lowestPending - pendingFrom] === undefined) lowestPending++;
    var done = lowestPending - pendingFrom;
    if (lowestPending === accepted) {
      resolvers.length = 0;
      rejecters.length = 0;
      pendingFrom = lowestPending;
    } else if (done >= CUT_AT && done * 2 >= resolvers.length) {
      cut(resolvers, done);
      cut(rejecters, done);
      pendingFrom = lowestPending;
    }
  }
  function settleCalls(text, only) {
    var list;
    try { list = parse(text); } catch (e) {
      var failed = only === undefined ? undefined : rejecters[only - pendingFrom];
      if (failed !== undefined) { forget(only - pendingFrom); release(); failed(e); }
      return 0;
    }
    var length = list.length;
    for (var i = 0; i < length;) {
      var slot = list[i] - pendingFrom;
      var kind = list[i + 1];
      var resolve = resolvers[slot];
      var fail = rejecters[slot];
      if (resolve !== undefined) forget(slot);
      if (kind === 1) {
        if (resolve !== undefined) resolve(list[i + 2]);
        i += 3;
      } else if (kind === 2) {
        if (resolve !== undefined) resolve(undefined);
        i += 2;
      } else if (kind === 0) {
        if (fail !== undefined) fail(callError(list[i + 2], list[i + 3], list[i + 4] === null ? undefined : list[i + 4]));
        i += 5;
      } else break;
    }
    release();
    return 1;
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
    over = true;
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
    over = true;
    var described = describe(error);
    hostSettle(described[0], described[1], described[2], described[3]);
  }
  function start(program) {
    var promise;
    try { promise = program(); } catch (e) { settleError(e); return; }
    try { apply(then, promise, [settleValue, settleError]); } catch (e) { settleValue(promise); }
  }
  function prefix(text, length) { return slice(text, 0, length); }
  return [setup, start, describe, prefix, settleCalls, takeCalls];
})`
