/** The repository's layout as the project promises it: module boundaries, and docs that name what the code has. */
package dev.padlock.tests.layout;
