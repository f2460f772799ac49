//go:build linux

package main

import "syscall"

// dup2 points newfd at oldfd's file. Linux on arm64 and riscv64 has no dup2 system call, so
// use dup3 (with no flags, it is dup2 for two different descriptors).
func dup2(oldfd, newfd int) error { return syscall.Dup3(oldfd, newfd, 0) }
