package logctl

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

// The hex below was captured with strace -xx on the real pmlc (PCP 6.0.3)
// talking to the real pmlogger 6.0.3 over its unix socket, the pmlogger
// started as
//
//	TZ=UTC PCP_DERIVED_CONFIG= pmlogger -c x.conf -l x.log /tmp/lc/xarch
//
// with x.conf "log mandatory on every 1 sec { kernel.all.load hinv.ncpu }",
// and pmlc fed "connect 21598 / status / query kernel.all.load / query
// hinv.ncpu / new volume / flush / log mandatory on 1 sec hinv.ncpu /
// status". The pmlogger's pid was 21598 (0x545e), pmlc's 21631 (0x547f).
const (
	capAck       = "00000010 00007000 0000545e 00000003"
	capCreds     = "00000014 0000700c 0000547f 00000001 01030000"
	capStatusReq = "00000010 00008002 00000000 00000002"
	capStatus    = "0000006c 00008003 00000000" +
		"6b01aeff 00000000 09c32158" + // start 1795272447.163783000
		"6b01af04 00000000 0af435b4" + // last  1795272452.183776692
		"6b01af04 00000000 0d1548b7" + // now   1795272452.219498679
		"00000001 00000000 00000000 00000384" + // state 1, vol 0, size 900
		"00000003 00000007 00000004 00000000 00000004 00000000" +
		"766d00 6c6f63616c3a00 55544300 55544300 7e7e" // vm local: UTC UTC ~~
	capQueryLoad    = "00000024 00008000 00000000 0000000d 00000000 00000000 00000001 0f000800 00000000"
	capQueryLoadRes = "0000003c 00007001 00000000 00000000 00000000 00000001 0f000800 00000003 00000000" +
		"00000001 00003e8f 00000005 00003e8f 0000000f 00003e8f"
	capQueryNCPU    = "0000002c 00008000 00000000 0000000d 00000000 00000000 00000001 0f000020 00000001 ffffffff 00000000"
	capQueryNCPURes = "0000002c 00007001 00000000 00000000 00000000 00000001 0f000020 00000001 00000000 ffffffff 00003e8f"
	capNewVolReq    = "00000010 00008002 00000000 00000001"
	capNewVolRes    = "00000010 00007000 00000000 00000001"
	capSyncReq      = "00000010 00008002 00000000 00000003"
	capSyncRes      = "00000010 00007000 00000000 00000000"
	capLogMand      = "0000002c 00008000 00000000 0000000b 00000002 000003e8 00000001 0f000020 00000001 ffffffff 00000000"
	// A second pmlc connecting while the first was still connected.
	capBusy = "00000010 00007000 00000000 ffffff9e"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func ts(sec int64, nsec int) time.Time { return time.Unix(sec, int64(nsec)).UTC() }

var (
	loadPMID = pmapi.NewPMID(60, 2, 0)
	ncpuPMID = pmapi.NewPMID(60, 0, 32)
)

// capturedStatus is the status the real pmlogger reported in capStatus.
var capturedStatus = Status{
	Start: ts(1795272447, 163783000), Last: ts(1795272452, 183776692), Now: ts(1795272452, 219498679),
	Volume: 0, Size: 900, PMCDHost: "vm", FQDN: "local:", TZ: "UTC", LoggerTZ: "UTC",
}

func mandOn(inst int32) InstState {
	return InstState{Inst: inst, Mandatory: true, On: true, InLog: true, Available: true, Interval: time.Second}
}

func TestEncodeAgainstCapture(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"ack", encodeError(21598, logPDUVersion3), capAck},
		{"busy", encodeError(0, codeAddrInUse), capBusy},
		{"status", encodeStatus(capturedStatus, 3), capStatus},
		{"newvolume", encodeError(0, 1), capNewVolRes},
		{"sync", encodeError(0, 0), capSyncRes},
		{"query-load", encodeQueryResult(
			&controlReq{Control: logEnquire, PMIDs: []pmapi.PMID{loadPMID}, Insts: [][]int32{nil}},
			[]MetricState{{PMID: loadPMID, Insts: []InstState{mandOn(1), mandOn(5), mandOn(15)}}}),
			capQueryLoadRes},
		{"query-ncpu", encodeQueryResult(
			&controlReq{Control: logEnquire, PMIDs: []pmapi.PMID{ncpuPMID}, Insts: [][]int32{{-1}}},
			[]MetricState{{PMID: ncpuPMID, Insts: []InstState{mandOn(-1)}}}),
			capQueryNCPURes},
		{"control-request", encodeControlRequest(logEnquire, 0, 0, []pmapi.PMID{ncpuPMID}, [][]int32{{-1}}), capQueryNCPU},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if want := unhex(t, tt.want); !bytes.Equal(tt.got, want) {
				t.Errorf("encoded\n%x\nreal pmlogger sent\n%x", tt.got, want)
			}
		})
	}
}

func TestDecodeAgainstCapture(t *testing.T) {
	v, err := decodeCreds(unhex(t, capCreds)[hdrLen:])
	if err != nil || v != 3 {
		t.Errorf("creds: version %d, %v; want 3", v, err)
	}
	for _, c := range []struct {
		hex  string
		want int32
	}{{capStatusReq, reqStatus}, {capNewVolReq, reqNewVolume}, {capSyncReq, reqSync}} {
		rt, err := decodeLogRequest(unhex(t, c.hex)[hdrLen:])
		if err != nil || rt != c.want {
			t.Errorf("%s: request %d, %v; want %d", c.hex, rt, err, c.want)
		}
	}
	req, err := decodeLogControl(unhex(t, capQueryLoad)[hdrLen:])
	if err != nil || req.Control != logEnquire || len(req.PMIDs) != 1 || req.PMIDs[0] != loadPMID || req.Insts[0] != nil {
		t.Errorf("query load: %+v, %v", req, err)
	}
	req, err = decodeLogControl(unhex(t, capQueryNCPU)[hdrLen:])
	if err != nil || req.PMIDs[0] != ncpuPMID || len(req.Insts[0]) != 1 || req.Insts[0][0] != -1 {
		t.Errorf("query ncpu: %+v, %v", req, err)
	}
	req, err = decodeLogControl(unhex(t, capLogMand)[hdrLen:])
	if err != nil || req.Control != logMandatory || req.State != 2 || req.Delta != 1000 || req.PMIDs[0] != ncpuPMID {
		t.Errorf("log mandatory: %+v, %v", req, err)
	}
}

func TestDecodeMalformed(t *testing.T) {
	bad := []string{
		"",
		"00000001",
		"00000000 00000000 00000000", // control: too short
		"0000000d 00000000 00000000 00000002 0f000800 00000000",                   // 2 metrics, 1 present
		"0000000d 00000000 00000000 00000001 0f000800 00000002 00000001 00000000", // 2 insts, 1 present
		"0000000d 00000000 00000000 ffffffff",
		"0000000d 00000000 00000000 7fffffff",
	}
	for _, h := range bad {
		if _, err := decodeLogControl(unhex(t, h)); err == nil {
			t.Errorf("decodeLogControl(%s): no error", h)
		}
	}
	for _, h := range []string{"", "00000002 01030000", "7fffffff", "ffffffff"} {
		if _, err := decodeCreds(unhex(t, h)); err == nil {
			t.Errorf("decodeCreds(%s): no error", h)
		}
	}
}

func TestStateValue(t *testing.T) {
	tests := []struct {
		s    InstState
		want int32
	}{
		{mandOn(1), 0x3e8f},
		{InstState{Mandatory: true}, 0x2}, // mand off
		{InstState{On: true, Interval: 500 * time.Millisecond}, 0x1f41}, // adv on 500ms, not in log
		{InstState{Maybe: true, Mandatory: true, On: true, InLog: true}, 0x8},
		{InstState{On: true, Mandatory: true}, 0x3}, // once
	}
	for _, tt := range tests {
		if got := stateValue(tt.s); got != tt.want {
			t.Errorf("stateValue(%+v) = %#x, want %#x", tt.s, got, tt.want)
		}
	}
}

func TestStatusV2Size(t *testing.T) {
	if n := len(encodeStatus(capturedStatus, 2)); n != 264 {
		t.Errorf("v2 status PDU is %d bytes, want 264", n)
	}
}
