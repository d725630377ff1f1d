// Command informer is the client-go contender of rxkube's initial-sync benchmark: one pods
// SharedIndexInformer (namespace index, one handler counting deliveries) against the benchmark
// server, timed from start to HasSynced. It prints one JSON line: wall-clock ms, CPU ms of the
// process (user + system, all threads, so GC is included) and the peak RSS growth in bytes.
//
// Built by the benchmark (bench/support/client-go.ts) from the client-go vendored in Debian's
// `kubernetes` source package; usage: informer SERVER_URL EXPECTED_PODS
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

type result struct {
	Ms            float64 `json:"ms"`
	CPUMs         float64 `json:"cpuMs"`
	CPUSettledMs  float64 `json:"cpuSettledMs"`
	PeakRssGrowth int64   `json:"peakRssGrowth"`
	Size          int     `json:"size"`
	Events        int64   `json:"events"`
}

func cpuMs() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

func maxRss() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss * 1024
}

// currentRss reads the resident set size from /proc/self/statm (pages).
func currentRss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: informer SERVER_URL EXPECTED_PODS")
		os.Exit(2)
	}
	expect, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	rss0 := currentRss()
	cpu0 := cpuMs()
	t0 := time.Now()

	// No client-side rate limit (the default 5 QPS would throttle the 200 page requests of 100k pods).
	cfg := &rest.Config{Host: os.Args[1], QPS: -1}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lw := cache.NewListWatchFromClient(clientset.CoreV1().RESTClient(), "pods", metav1.NamespaceAll, fields.Everything())
	informer := cache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	var events int64
	count := func(interface{}) { atomic.AddInt64(&events, 1) }
	informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    count,
		UpdateFunc: func(_, o interface{}) { count(o) },
		DeleteFunc: count,
	})
	stop := make(chan struct{})
	go informer.Run(stop)
	// Poll every millisecond (cache.WaitForCacheSync polls every 100 ms).
	for !informer.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	ms := float64(time.Since(t0).Nanoseconds()) / 1e6
	cpu := cpuMs() - cpu0
	r := result{
		Ms:            ms,
		CPUMs:         cpu,
		CPUSettledMs:  cpu,
		PeakRssGrowth: maxRss() - rss0,
		Size:          len(informer.GetStore().ListKeys()),
		Events:        atomic.LoadInt64(&events),
	}
	close(stop)
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
	if r.Size != expect {
		fmt.Fprintf(os.Stderr, "synced with %d pods, expected %d\n", r.Size, expect)
		os.Exit(1)
	}
}
