/**
 * The starter's Spring Boot 3 half, compiled against Boot 3.5's actuator: the {@code padlock}
 * health indicator on {@code org.springframework.boot.actuate.health} and its auto-configuration,
 * which the starter lists beside its own and which backs off on Boot 4 (whose indicator is the
 * starter's {@code dev.padlock.spring.boot.PadlockHealthIndicator}). Nothing here is loaded on
 * Boot 4: the auto-configuration's conditions name Boot 3's classes and are read without loading it.
 */
package dev.padlock.spring.boot.boot3;
