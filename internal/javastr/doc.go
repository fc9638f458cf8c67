// Package javastr reproduces the few java.lang.String behaviours whose edge
// cases decide how Java Dubbo reads rules (String.split dropping trailing
// empty strings, \d+ checks), so every router reads them alike.
package javastr
