/**
 * Parts of the sandbox prelude (see prelude-source.ts) kept in sources of their own. The prelude
 * compiles each once per engine instance, when it is installed; each is a function expression the
 * prelude calls with the built-ins and helpers it captured (its parameters name them, in the order
 * the prelude passes them), returning what it provides. Plain ES2020 text, like the prelude.
 */

/**
 * The full lossless encoder: iterative (deep values must not exhaust any stack), naming the path of
 * what is not JSON. The prelude's recursive encoder hands it every value it does not take.
 * Provides `{ encode, isNotJson, notJsonText }`; `encode(value)` throws a NotJson to describe.
 */
export const ENCODER_SOURCE = String.raw`(function (apply, ownKeys, getProto, getOwnDescriptor, isArray,
    ObjectProto, ArrayProto, stringify, isFiniteNumber, pop, join, SetCtor, setHas, setAdd, setDelete,
    test, add, keySegment, instanceName, INDEX, MAX_DEPTH, PATH_HEAD, PATH_TAIL) {
  'use strict';
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
  function isNotJson(e) { return e instanceof NotJson; }
  return { encode: encode, isNotJson: isNotJson, notJsonText: notJsonText };
})`

/**
 * Describing any value for a log line or an error message (bounded, never throws). Provides
 * `{ show }`: `show(value, depth, seen)`.
 */
export const SHOW_SOURCE = String.raw`(function (apply, ownKeys, getProto, isArray, ObjectProto, stringify,
    join, setHas, setAdd, setDelete, symbolToString, StringCtor, ErrorCtor, test, add, instanceName,
    errorText, IDENTIFIER, SHOW_DEPTH, SHOW_ITEMS) {
  'use strict';
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
  return { show: show };
})`

/**
 * The quick encoder: the common case in one recursive pass, plain objects and dense arrays of JSON
 * values no deeper than FAST_DEPTH. Anything else (a value to refuse, deeper nesting, more than
 * FAST_WORK units of text copied while joining) goes to the full encoder, which walks the value
 * afresh and names the problem (a getter in such a value runs again). Provides `encode(value)`:
 * JSON text, or undefined for `undefined`; throws what the full encoder throws.
 *
 * It runs for every binding call's argument, interpreted by the engine, where each operation
 * counts (about 2.2 µs for `{ a: 1, b: 2 }` before these choices, 1.9 after): a child's type is
 * read once and numbers, strings and booleans are written in place (a call only for objects); a
 * number is finite when `n - n === 0` (an operator, not a call); an object key's text is kept
 * with its colon, so an entry costs two concatenations.
 */
export const QUICK_ENCODER_SOURCE = String.raw`(function (stringify, getProto, isArray, ArrayProto,
    ObjectProto, objectKeys, ownKeys, create, full) {
  'use strict';
  var FAST_DEPTH = 32;
  var FAST_WORK = 262144;
  var fastWork = 0;
  // The JSON text and colon of the object keys met so far (a program sends the same few keys call
  // after call, and stringify is a native call each time): a prototype-less object, so every key,
  // even '__proto__', is an own property of it; short keys only, and at most KEY_TEXTS of them.
  var KEY_TEXTS = 512;
  var KEY_LENGTH = 64;
  var keyHeads = create(null);
  var keyCount = 0;
  function keyHead(key) {
    var text = stringify(key) + ':';
    if (keyCount < KEY_TEXTS && key.length <= KEY_LENGTH) {
      keyHeads[key] = text;
      keyCount++;
    }
    return text;
  }
  // An object (null included): its text, or undefined to hand the value to the full encoder.
  function fast(value, depth) {
    if (value === null) return 'null';
    if (depth >= FAST_DEPTH) return undefined;
    var proto = getProto(value);
    var out, piece, i, child, type, length;
    if (isArray(value)) {
      if (proto !== ArrayProto) return undefined;
      length = value.length;
      // own keys list the indices first, then 'length': exactly length indices before it is dense
      var all = ownKeys(value);
      if (all.length !== length + 1 || all[length] !== 'length') return undefined;
      out = '[';
      for (i = 0; i < length; i++) {
        child = value[i];
        type = typeof child;
        if (type === 'number') {
          if (child - child !== 0) return undefined;
          piece = '' + child;
        } else if (type === 'string') piece = stringify(child);
        else if (type === 'object') {
          piece = fast(child, depth + 1);
          if (piece === undefined) return undefined;
        } else if (type === 'boolean') piece = child ? 'true' : 'false';
        else return undefined;
        out += i === 0 ? piece : ',' + piece;
        if ((fastWork += out.length) > FAST_WORK) return undefined;
      }
      return out + ']';
    }
    if (proto !== ObjectProto && proto !== null) return undefined;
    var keys = objectKeys(value);
    length = keys.length;
    // as many enumerable string keys as own keys: no symbol key, no non-enumerable property
    if (ownKeys(value).length !== length) return undefined;
    out = '{';
    for (i = 0; i < length; i++) {
      var key = keys[i];
      child = value[key];
      type = typeof child;
      if (type === 'number') {
        if (child - child !== 0) return undefined; // NaN or ±Infinity: the full encoder says where
        piece = '' + child;
      } else if (type === 'string') piece = stringify(child);
      else if (type === 'undefined') continue;
      else if (type === 'object') {
        piece = fast(child, depth + 1);
        if (piece === undefined) return undefined;
      } else if (type === 'boolean') piece = child ? 'true' : 'false';
      else return undefined;
      var head = keyHeads[key];
      if (head === undefined) head = keyHead(key);
      // out is '{' until the first entry is written
      out += out.length === 1 ? head + piece : ',' + head + piece;
      if ((fastWork += out.length) > FAST_WORK) return undefined;
    }
    return out + '}';
  }
  function encode(root) {
    var type = typeof root;
    if (type === 'undefined') return undefined;
    var quick;
    if (type === 'object') {
      fastWork = 0;
      quick = fast(root, 0);
    } else if (type === 'number') quick = root - root === 0 ? '' + root : undefined;
    else if (type === 'string') quick = stringify(root);
    else if (type === 'boolean') quick = root ? 'true' : 'false';
    if (quick !== undefined) return quick;
    return full.encode(root);
  }
  return encode;
})`

/**
 * The sandbox's `Math.random` (xoshiro128**, 53 bits per number). Every run starts from a copy of the
 * engine's memory, so the engine's own generator would draw the same numbers in every run; this one
 * is seeded by the worker for each run. Provides `{ random, seed(a, b, c, d) }` (32-bit words).
 */
export const RANDOM_SOURCE = String.raw`(function (imul) {
  'use strict';
  var r0 = 1, r1 = 0, r2 = 0, r3 = 0;
  function rotl(x, k) { return (x << k) | (x >>> (32 - k)); }
  function next32() {
    var result = imul(rotl(imul(r1, 5), 7), 9);
    var t = r1 << 9;
    r2 ^= r0; r3 ^= r1; r1 ^= r2; r0 ^= r3; r2 ^= t; r3 = rotl(r3, 11);
    return result >>> 0;
  }
  function random() { return ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992; }
  function seed(seed0, seed1, seed2, seed3) {
    r0 = seed0 | 0; r1 = seed1 | 0; r2 = seed2 | 0; r3 = seed3 | 0;
    if ((r0 | r1 | r2 | r3) === 0) r0 = 1;
  }
  return { random: random, seed: seed };
})`
