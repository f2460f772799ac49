//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// protectStreams keeps private, close-on-exec duplicates of fd 0 and fd 1 for the protocol,
// then points fd 1 at stderr and fd 0 at /dev/null, so that nothing the library (or a child
// process) writes to stdout can reach the reply stream, and nothing can consume requests.
func protectStreams() (in, out *os.File, err error) {
	outFd, err := syscall.Dup(1)
	if err != nil {
		return nil, nil, fmt.Errorf("dup(1): %w", err)
	}
	syscall.CloseOnExec(outFd)
	inFd, err := syscall.Dup(0)
	if err != nil {
		return nil, nil, fmt.Errorf("dup(0): %w", err)
	}
	syscall.CloseOnExec(inFd)
	if err := dup2(2, 1); err != nil {
		return nil, nil, fmt.Errorf("dup2(2, 1): %w", err)
	}
	devnull, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	if err := dup2(devnull, 0); err != nil {
		return nil, nil, fmt.Errorf("dup2(devnull, 0): %w", err)
	}
	syscall.Close(devnull)
	return os.NewFile(uintptr(inFd), "protocol-stdin"), os.NewFile(uintptr(outFd), "protocol-stdout"), nil
}
