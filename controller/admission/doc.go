// Package admission serves admission webhooks: the API server asks them
// about a write before it stores it, so what they refuse never gets a
// resourceVersion, never reaches a watch (step 1), and is never reconciled.
//
//	kubectl create --> kube-apiserver --AdmissionReview (HTTPS)--> Server --> Webhook --> Handler
//	                          |         <--allowed? patch?------        (Defaulter / Validator)
//	                          v
//	                    storage, then the watch event of step 1
//
// # How it works
//
//  1. [Webhook] turns a [Handler] into an http.Handler: it decodes an
//     admission.k8s.io/v1 [Review], calls the handler with its [Request],
//     and answers with the [Response] and the request's uid. A malformed
//     review is refused with a clear status; a handler that panics refuses.
//  2. [DefaultingWebhook] serves a [Defaulter]: it decodes the object into
//     its Go type, calls Default, and answers with a JSON patch of only what
//     Default changed (a mutating webhook).
//  3. [ValidatingWebhook] serves a [Validator]: ValidateCreate,
//     ValidateUpdate (with the old object) or ValidateDelete; an error
//     refuses the write, with its API status and causes kept ([Denied]).
//  4. [Server] serves the webhooks over TLS on one port, reloading its
//     certificate when the files change. A Manager starts it before its cache
//     and counts it in /readyz.
//
// # Guarantees
//
//   - A review is answered, always with its uid: allowed, refused with a
//     reason, or refused because it could not be read.
//   - Reviews and their objects are decoded as the API server decodes
//     them: keys match in their own case only, so a validator never judges
//     {"replicas":1000,"Replicas":1} as 1 while 1000 is stored.
//   - The defaulting patch holds only what Default changed; fields the Go
//     type does not know are left as the client sent them.
//   - Server and the handlers are safe for concurrent use.
//
// # Differences from controller-runtime
//
//   - admission.k8s.io/v1 only. Defaulter and Validator are generic in the
//     object type instead of taking runtime.Object.
//   - The webhook types and the server are one package: the server exists
//     only to serve these webhooks.
//
// client-go files: controller-runtime pkg/webhook/admission (webhook.go,
// http.go, defaulter_custom.go, validator_custom.go), pkg/webhook/server.go,
// pkg/certwatcher.
//
// # Read next
//
//	go test ./controller/admission -run Example -v
//	go test ./controller/admission -run 'TestValidatingWebhookAsksTheValidator|TestDefaultingWebhookPatchesOnlyWhatDefaultChanged' -v
//
// docs/admission.md follows one write through authentication,
// authorization, mutating admission, schema validation and validating
// admission. Next: samplecontroller's Foo webhooks.
package admission
