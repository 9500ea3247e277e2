/** Helpers the tests share: clients closed after each test, contention runners, worker JVMs, Redisson clients and random calls. */
package dev.padlock.tests.support;
