/** A sample Spring Boot 4 application on Padlock: see {@link dev.padlock.sample.boot4.SampleApplication}. */
package dev.padlock.sample.boot4;
