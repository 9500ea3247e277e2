/** The model-based test: random sequences of calls by several owners and clients (and a Redisson actor) checked against a model of who holds what, with stalls and expiries. */
package dev.padlock.tests.model;
