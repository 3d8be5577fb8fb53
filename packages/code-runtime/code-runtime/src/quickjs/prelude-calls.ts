/**
 * The sandbox prelude's binding calls (see prelude-source.ts, which embeds this source as a string
 * and compiles it once, when the prelude is installed, calling it with the built-ins and helpers it
 * captured). A call is checked here (the run still going, `maxBindingCalls`, `valueBytes`), queued
 * in program order with its argument's JSON text, and returns a promise whose settle functions stay
 * in this closure; the host takes queued calls with `takeCalls(room, budget)` and settles answered
 * ones with `settleCalls(text, only?)`. Provides `{ makeBinding(name, id), limit(maxBindingCalls,
 * valueBytes), end(), takeCalls, settleCalls }`: `limit` is set for each run, `end` refuses later
 * calls once the program has settled. Plain ES2020 text, like the prelude.
 */
export const CALLS_SOURCE = String.raw`(function (apply, setProto, splice, join, defineProperty, freeze,
    PromiseCtor, ErrorCtor, TypeErrorCtor, reject, toolLabel, encode, encodeError, parse, FIELD, RECORD) {
  'use strict';
  // set by limit for each run
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

  function limit(maxBindingCalls, maxValueBytes) {
    maxCalls = maxBindingCalls;
    valueBytes = maxValueBytes;
  }
  function end() { over = true; }
  return { makeBinding: makeBinding, limit: limit, end: end, takeCalls: takeCalls, settleCalls: settleCalls };
})`
