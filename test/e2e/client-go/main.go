// Command protobuf-client is the client-go program of rxkube's e2e test
// test/e2e/client-go-protobuf.test.ts. Its clientset is configured for protobuf (ContentType
// application/vnd.kubernetes.protobuf, Accept protobuf then JSON). It lists and watches ConfigMaps,
// creates, updates, patches and deletes one (with a stale update and a failed delete precondition),
// lists a batch in pages and deletes it as a collection, while a ConfigMap informer runs; then it
// holds a Lease with client-go's leaderelection (resourcelock.LeaseLock), renews it at least twice
// and releases it on cancel. It prints one JSON line summing up what happened, with the media types
// of every request body sent and every response received (a transport wrapper counts them), so the
// test can run it against the embedded API server and against kube-apiserver and compare the lines.
//
// Built by the e2e test (bench/support/client-go.ts builds it from the client-go vendored in
// Debian's `kubernetes` source package, Kubernetes 1.20.2). Usage:
//
//	protobuf-client -kubeconfig FILE -namespace NS -name NAME
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
)

const protobuf = "application/vnd.kubernetes.protobuf"

// mediaTypes counts, per "METHOD resource", the media types of request bodies and responses.
type mediaTypes struct {
	mu        sync.Mutex
	requests  map[string]map[string]int
	responses map[string]map[string]int
}

func (m *mediaTypes) add(into map[string]map[string]int, key, mediaType string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if into[key] == nil {
		into[key] = map[string]int{}
	}
	into[key][mediaType]++
}

// sorted turns counts into "METHOD resource" → sorted distinct media types (counts vary with timing).
func (m *mediaTypes) sorted(from map[string]map[string]int) map[string][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string][]string{}
	for key, types := range from {
		for t := range types {
			out[key] = append(out[key], t)
		}
		sort.Strings(out[key])
	}
	return out
}

// resourceOf names a request by verb and resource: "GET configmaps", "WATCH configmaps", "PUT leases".
func resourceOf(req *http.Request) string {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	resource := ""
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "namespaces" && i+2 < len(parts) {
			resource = parts[i+2]
			break
		}
	}
	if resource == "" && len(parts) > 0 {
		resource = parts[len(parts)-1]
	}
	verb := req.Method
	if req.URL.Query().Get("watch") == "true" || req.URL.Query().Get("watch") == "1" {
		verb = "WATCH"
	}
	return verb + " " + resource
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

type countingTransport struct {
	next  http.RoundTripper
	types *mediaTypes
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := resourceOf(req)
	if req.Body != nil && req.ContentLength != 0 {
		t.types.add(t.types.requests, key, req.Header.Get("Content-Type"))
	}
	res, err := t.next.RoundTrip(req)
	if err == nil {
		t.types.add(t.types.responses, key, res.Header.Get("Content-Type"))
	}
	return res, err
}

// countingLock wraps the LeaseLock and counts what leaderelection does with it.
type countingLock struct {
	resourcelock.Interface
	mu       sync.Mutex
	creates  int
	renewals int
	releases int
	written  metav1.Time
}

func (l *countingLock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	err := l.Interface.Create(ctx, ler)
	if err == nil {
		l.mu.Lock()
		l.creates++
		l.mu.Unlock()
	}
	return err
}

func (l *countingLock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	err := l.Interface.Update(ctx, ler)
	if err == nil {
		l.mu.Lock()
		l.written = ler.RenewTime
		if ler.HolderIdentity == "" {
			l.releases++
		} else {
			l.renewals++
		}
		l.mu.Unlock()
	}
	return err
}

func (l *countingLock) count() (int, int, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.creates, l.renewals, l.releases
}

type leaseSummary struct {
	Acquired             bool   `json:"acquired"`
	Holder               string `json:"holder"`
	RenewedAtLeastTwice  bool   `json:"renewedAtLeastTwice"`
	Renewals             int    `json:"renewals"`
	AcquireTimeKept      bool   `json:"acquireTimeKept"`
	RenewTimeAdvanced    bool   `json:"renewTimeAdvanced"`
	RenewTimeReadBack    string `json:"renewTimeReadBack"`
	Released             bool   `json:"released"`
	HolderAfterRelease   string `json:"holderAfterRelease"`
	DurationAfterRelease int32  `json:"leaseDurationSecondsAfterRelease"`
	Transitions          int32  `json:"leaseTransitions"`
}

type informerSummary struct {
	Synced bool     `json:"synced"`
	Seen   []string `json:"seen"`
	// Lists the informer's reflector made: one, unless a watch broke (a frame it could not decode).
	Lists int `json:"lists"`
}

type summary struct {
	Verbs           []string            `json:"verbs"`
	ListKind        string              `json:"listKind"`
	ListHadVersion  bool                `json:"listHadResourceVersion"`
	Events          []string            `json:"events"`
	PagedList       []int               `json:"pagedList"`
	PatchedData     map[string]string   `json:"patchedData"`
	LeaderEvents    []string            `json:"leaderEvents"`
	Informer        informerSummary     `json:"informer"`
	LeaseEvents     []string            `json:"leaseEvents"`
	ConfigMapData   map[string]string   `json:"configMapData"`
	Generation      map[string]bool     `json:"resourceVersionChanged"`
	Lease           leaseSummary        `json:"lease"`
	RequestBodies   map[string][]string `json:"requestBodies"`
	Responses       map[string][]string `json:"responses"`
	Errors          []string            `json:"errors"`
	ElapsedMs       int64               `json:"elapsedMs"`
	AllProtobufSent bool                `json:"allProtobufSent"` // every request body but patches
	AllProtobufRecv bool                `json:"allProtobufReceived"`
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	namespace := flag.String("namespace", "default", "namespace of the ConfigMap and the Lease")
	name := flag.String("name", "rxkube-client-go", "name of the ConfigMap and the Lease")
	flag.Parse()
	t0 := time.Now()
	out := summary{Verbs: []string{}, Events: []string{}, PagedList: []int{}, LeaderEvents: []string{}, LeaseEvents: []string{}, Errors: []string{}, Generation: map[string]bool{}}
	fail := func(format string, args ...interface{}) {
		out.Errors = append(out.Errors, fmt.Sprintf(format, args...))
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cfg.ContentType = protobuf
	cfg.AcceptContentTypes = protobuf + ",application/json"
	cfg.QPS = -1
	media := &mediaTypes{requests: map[string]map[string]int{}, responses: map[string]map[string]int{}}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return &countingTransport{next: rt, types: media} }
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cms := clientset.CoreV1().ConfigMaps(*namespace)

	// A ConfigMap informer over protobuf from the start (its own clientset, counting its lists),
	// recording what it delivers for the ConfigMap of the test.
	informerCfg := rest.CopyConfig(cfg)
	var informerLists int32
	informerCfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method == "GET" && req.URL.Query().Get("watch") == "" {
				atomic.AddInt32(&informerLists, 1)
			}
			return rt.RoundTrip(req)
		})
	}
	informerClient, err := kubernetes.NewForConfig(informerCfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var informerMu sync.Mutex
	informerSeen := []string{}
	note := func(what string, o interface{}) {
		if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
			o = t.Obj
		}
		if c, ok := o.(*v1.ConfigMap); ok && c.Name == *name {
			label := what + " " + c.Data["step"]
			if c.Data["patched"] != "" {
				label += "+patched"
			}
			informerMu.Lock()
			informerSeen = append(informerSeen, label)
			informerMu.Unlock()
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(informerClient, 0, informers.WithNamespace(*namespace))
	cmInformer := factory.Core().V1().ConfigMaps().Informer()
	cmInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o interface{}) { note("add", o) },
		UpdateFunc: func(_, o interface{}) { note("update", o) },
		DeleteFunc: func(o interface{}) { note("delete", o) },
	})
	stopInformer := make(chan struct{})
	factory.Start(stopInformer)
	out.Informer.Synced = cache.WaitForCacheSync(ctx.Done(), cmInformer.HasSynced)

	// List, then watch from the list's resourceVersion.
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		fail("list: %v", err)
	} else {
		out.Verbs = append(out.Verbs, "list")
		out.ListKind = fmt.Sprintf("%T", list)
		out.ListHadVersion = list.ResourceVersion != ""
	}
	rv := ""
	if list != nil {
		rv = list.ResourceVersion
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: "metadata.name=" + *name})
	if err != nil {
		fail("watch: %v", err)
	} else {
		out.Verbs = append(out.Verbs, "watch")
	}

	// Create, update and delete one ConfigMap.
	cm := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: *name, Labels: map[string]string{"app": "rxkube-e2e"}}, Data: map[string]string{"step": "created"}}
	created, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		fail("create: %v", err)
	} else {
		out.Verbs = append(out.Verbs, "create")
		created.Data["step"] = "updated"
		created.Data["extra"] = "x"
		updated, err := cms.Update(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			fail("update: %v", err)
		} else {
			out.Verbs = append(out.Verbs, "update")
			out.ConfigMapData = updated.Data
			out.Generation["update"] = updated.ResourceVersion != created.ResourceVersion
			// A stale update (the created object's resourceVersion) must conflict.
			created.Data["step"] = "stale"
			if _, err := cms.Update(ctx, created, metav1.UpdateOptions{}); err == nil {
				fail("stale update succeeded")
			} else if !strings.Contains(err.Error(), "the object has been modified") {
				fail("stale update: %v", err)
			} else {
				out.Verbs = append(out.Verbs, "update-conflict")
			}
			got, err := cms.Get(ctx, *name, metav1.GetOptions{})
			if err != nil {
				fail("get: %v", err)
			} else {
				out.Verbs = append(out.Verbs, "get")
				out.Generation["get"] = got.ResourceVersion == updated.ResourceVersion
			}
		}
		// A strategic merge patch (JSON body, protobuf response).
		patched, err := cms.Patch(ctx, *name, types.StrategicMergePatchType, []byte(`{"data":{"patched":"yes"}}`), metav1.PatchOptions{})
		if err != nil {
			fail("patch: %v", err)
		} else {
			out.Verbs = append(out.Verbs, "patch")
			out.PatchedData = patched.Data
		}
		// A delete whose precondition (a stale resourceVersion, in the protobuf DeleteOptions body) fails.
		stale := created.ResourceVersion
		if err := cms.Delete(ctx, *name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &stale}}); apierrors.IsConflict(err) {
			out.Verbs = append(out.Verbs, "delete-conflict")
		} else {
			fail("delete with a stale precondition: %v", err)
		}
		if err := cms.Delete(ctx, *name, metav1.DeleteOptions{}); err != nil {
			fail("delete: %v", err)
		} else {
			out.Verbs = append(out.Verbs, "delete")
		}
	}
	if w != nil {
		timeout := time.After(10 * time.Second)
	events:
		for len(out.Events) == 0 || !strings.HasPrefix(out.Events[len(out.Events)-1], "DELETED") {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					fail("watch closed after %v", out.Events)
					break events
				}
				if ev.Type == watch.Error {
					fail("watch error: %v", ev.Object)
					break events
				}
				obj, isCM := ev.Object.(*v1.ConfigMap)
				if !isCM {
					fail("watch object %T", ev.Object)
					continue
				}
				label := fmt.Sprintf("%s %s", ev.Type, obj.Data["step"])
				if obj.Data["patched"] != "" {
					label += "+patched"
				}
				out.Events = append(out.Events, label)
			case <-timeout:
				fail("watch: timed out after %v", out.Events)
				break events
			}
		}
		w.Stop()
	}

	// A Get of a missing object: a NotFound Status (protobuf) the client recognizes.
	if _, err := cms.Get(ctx, *name+"-missing", metav1.GetOptions{}); apierrors.IsNotFound(err) {
		out.Verbs = append(out.Verbs, "get-notfound")
	} else {
		fail("get missing: %v", err)
	}
	// Three more ConfigMaps, listed two at a time (limit and continue), then deleted as a collection.
	batch := "rxkube-e2e-batch-" + *name
	for i := 0; i < 3; i++ {
		extra := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", *name, i), Labels: map[string]string{"batch": batch}}}
		if _, err := cms.Create(ctx, extra, metav1.CreateOptions{}); err != nil {
			fail("create %d: %v", i, err)
		}
	}
	for cont, pages := "", 0; pages < 5; pages++ {
		page, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "batch=" + batch, Limit: 2, Continue: cont})
		if err != nil {
			fail("paged list: %v", err)
			break
		}
		out.PagedList = append(out.PagedList, len(page.Items))
		if cont = page.Continue; cont == "" {
			break
		}
	}
	if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "batch=" + batch}); err != nil {
		fail("delete collection: %v", err)
	} else if left, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "batch=" + batch}); err != nil || len(left.Items) != 0 {
		fail("after delete collection: %v, %v", left, err)
	} else {
		out.Verbs = append(out.Verbs, "deletecollection")
	}

	// Hold a Lease: acquire, renew at least twice, release on cancel; a watch of the Lease sees it.
	leases := clientset.CoordinationV1().Leases(*namespace)
	var leaseEvents []watch.Event
	var leaseWatchDone sync.WaitGroup
	lw, err := leases.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + *name})
	if err != nil {
		fail("lease watch: %v", err)
	} else {
		leaseWatchDone.Add(1)
		go func() {
			defer leaseWatchDone.Done()
			for ev := range lw.ResultChan() {
				leaseEvents = append(leaseEvents, ev)
				if ev.Type == watch.Deleted || ev.Type == watch.Error {
					return
				}
			}
		}()
	}
	identity := *name + "-holder"
	// leaderelection records a "became leader" Event (core/v1, posted in protobuf by the broadcaster).
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: clientset.CoreV1().Events(*namespace)})
	recorder := broadcaster.NewRecorder(scheme.Scheme, v1.EventSource{Component: "rxkube-e2e"})
	lock := &countingLock{Interface: &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: *name, Namespace: *namespace},
		Client:     clientset.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity, EventRecorder: recorder},
	}}
	leCtx, leCancel := context.WithTimeout(ctx, 30*time.Second)
	var seen []*coordinationv1.Lease
	var lost bool
	leading := make(chan struct{}) // closed when OnStartedLeading returns
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock,
		// Renewals come every RetryPeriod; the long deadline keeps a slow machine from losing the lease.
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     300 * time.Millisecond,
		ReleaseOnCancel: true,
		Name:            *name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(c context.Context) {
				defer close(leading)
				out.Lease.Acquired = true
				for {
					if l, err := leases.Get(c, *name, metav1.GetOptions{}); err == nil {
						seen = append(seen, l)
					}
					if _, renewals, _ := lock.count(); renewals >= 2 && len(seen) >= 2 {
						leCancel()
						return
					}
					select {
					case <-c.Done():
						return
					case <-time.After(350 * time.Millisecond):
					}
				}
			},
			OnStoppedLeading: func() {
				if leCtx.Err() == nil {
					lost = true
				}
			},
		},
	})
	if err != nil {
		fail("leader elector: %v", err)
	} else {
		elector.Run(leCtx)
		if lost {
			fail("lost the lease before the renewals were done")
		}
		select {
		case <-leading:
		case <-time.After(5 * time.Second):
			fail("never led, or OnStartedLeading did not return")
		}
	}
	leCancel()
	creates, renewals, releases := lock.count()
	if creates == 1 {
		out.Verbs = append(out.Verbs, "lease-create")
	}
	out.Lease.Renewals = renewals
	out.Lease.RenewedAtLeastTwice = renewals >= 2
	out.Lease.Released = releases == 1
	if len(seen) >= 2 {
		first, last := seen[0], seen[len(seen)-1]
		if first.Spec.HolderIdentity != nil {
			out.Lease.Holder = *first.Spec.HolderIdentity
		}
		out.Lease.AcquireTimeKept = first.Spec.AcquireTime != nil && last.Spec.AcquireTime != nil && first.Spec.AcquireTime.Equal(last.Spec.AcquireTime)
		out.Lease.RenewTimeAdvanced = first.Spec.RenewTime != nil && last.Spec.RenewTime != nil && last.Spec.RenewTime.After(first.Spec.RenewTime.Time)
	} else {
		fail("saw the Lease %d times while leading", len(seen))
	}
	final, err := leases.Get(ctx, *name, metav1.GetOptions{})
	if err != nil {
		fail("get lease: %v", err)
	} else {
		if final.Spec.HolderIdentity != nil {
			out.Lease.HolderAfterRelease = *final.Spec.HolderIdentity
		}
		if final.Spec.LeaseDurationSeconds != nil {
			out.Lease.DurationAfterRelease = *final.Spec.LeaseDurationSeconds
		}
		// How the renewTime written last (by the release) reads back: "exact" (nanoseconds kept),
		// "microseconds" (truncated as in JSON) or "different".
		lock.mu.Lock()
		written := lock.written.Time
		lock.mu.Unlock()
		switch {
		case final.Spec.RenewTime == nil:
			out.Lease.RenewTimeReadBack = "missing"
		case final.Spec.RenewTime.Time.Equal(written):
			out.Lease.RenewTimeReadBack = "exact"
		case final.Spec.RenewTime.Time.Equal(written.Truncate(time.Microsecond)):
			out.Lease.RenewTimeReadBack = "microseconds"
		default:
			out.Lease.RenewTimeReadBack = fmt.Sprintf("different: wrote %s, read %s", written.Format(time.RFC3339Nano), final.Spec.RenewTime.Time.Format(time.RFC3339Nano))
		}
		if final.Spec.LeaseTransitions != nil {
			out.Lease.Transitions = *final.Spec.LeaseTransitions
		}
	}
	if err := leases.Delete(ctx, *name, metav1.DeleteOptions{}); err != nil {
		fail("delete lease: %v", err)
	}
	// The Event reaches the server asynchronously: poll for it, then delete it.
	eventsClient := clientset.CoreV1().Events(*namespace)
	for deadline := time.Now().Add(10 * time.Second); ; {
		evs, err := eventsClient.List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Lease,involvedObject.name=" + *name})
		if err != nil {
			fail("list events: %v", err)
			break
		}
		if len(evs.Items) > 0 || time.Now().After(deadline) {
			for _, e := range evs.Items {
				out.LeaderEvents = append(out.LeaderEvents, fmt.Sprintf("%s %s %s: %s", e.Type, e.Reason, e.Source.Component, e.Message))
				if err := eventsClient.Delete(ctx, e.Name, metav1.DeleteOptions{}); err != nil {
					fail("delete event: %v", err)
				}
			}
			sort.Strings(out.LeaderEvents)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	broadcaster.Shutdown()
	if lw != nil {
		waited := make(chan struct{})
		go func() { leaseWatchDone.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			fail("lease watch: no DELETED event")
		}
		lw.Stop()
		<-waited
		// Event types in order, repeats folded (the number of renewals varies with timing); the
		// holders must be the identity, then "" after the release.
		for _, ev := range leaseEvents {
			l, ok := ev.Object.(*coordinationv1.Lease)
			if !ok {
				fail("lease watch object %T", ev.Object)
				continue
			}
			holder := ""
			if l.Spec.HolderIdentity != nil {
				holder = *l.Spec.HolderIdentity
			}
			if l.Spec.RenewTime == nil || l.Spec.AcquireTime == nil {
				fail("lease watch event %s without renewTime or acquireTime", ev.Type)
			}
			label := fmt.Sprintf("%s %s", ev.Type, holder)
			if n := len(out.LeaseEvents); n == 0 || out.LeaseEvents[n-1] != label {
				out.LeaseEvents = append(out.LeaseEvents, label)
			}
		}
	}

	// The informer has seen the ConfigMap deleted long ago; stop it.
	close(stopInformer)
	informerMu.Lock()
	out.Informer.Seen = informerSeen
	informerMu.Unlock()
	out.Informer.Lists = int(atomic.LoadInt32(&informerLists))

	out.RequestBodies = media.sorted(media.requests)
	out.Responses = media.sorted(media.responses)
	// Every body but the patch's (patches are JSON documents whatever the client's content type).
	out.AllProtobufSent = len(out.RequestBodies) > 0
	for key, ts := range out.RequestBodies {
		if strings.HasPrefix(key, "PATCH ") {
			continue
		}
		for _, t := range ts {
			out.AllProtobufSent = out.AllProtobufSent && t == protobuf
		}
	}
	out.AllProtobufRecv = len(out.Responses) > 0
	for _, ts := range out.Responses {
		for _, t := range ts {
			out.AllProtobufRecv = out.AllProtobufRecv && strings.HasPrefix(t, protobuf)
		}
	}
	out.ElapsedMs = time.Since(t0).Milliseconds()
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
}
