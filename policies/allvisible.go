package policies

// AllVisibleParams choose how sequential scans skip per-tuple visibility
// checks on all-visible pages.
//
//   - page_flag: PostgreSQL since 8.4 (commit 608195a3): the scan trusts
//     the page's PD_ALL_VISIBLE flag (heapam.c heapgetpage).
//   - vm: Jeff Davis's 2013 patch "Removing PD_ALL_VISIBLE": the flag is
//     gone, so a scan consults the visibility map instead, pinning the VM
//     page that covers the heap page; tables smaller than vm_skip_threshold
//     pages (32 in the patch) skip the VM and check every tuple.
type AllVisibleParams struct {
	Mode            string `yaml:"mode" enum:"page_flag|vm" doc:"what a seqscan trusts: the page flag, or the visibility map"`
	VMSkipThreshold int    `yaml:"vm_skip_threshold" range:"0," doc:"vm mode: tables with fewer pages check every tuple instead"`
}

// DefaultAllVisibleParams is PostgreSQL's behaviour.
func DefaultAllVisibleParams() AllVisibleParams {
	return AllVisibleParams{Mode: "page_flag", VMSkipThreshold: 32}
}

// ScanUsesVM reports whether a seqscan of a table of the given size pins
// VM pages to test all-visible bits (vm mode, at or above the threshold).
func (p AllVisibleParams) ScanUsesVM(tablePages int32) bool {
	return p.Mode == "vm" && int64(tablePages) >= int64(p.VMSkipThreshold)
}

// ScanSkipsAllVisible reports whether a seqscan may skip per-tuple checks
// on all-visible pages of a table of the given size.
func (p AllVisibleParams) ScanSkipsAllVisible(tablePages int32) bool {
	return p.Mode == "page_flag" || p.ScanUsesVM(tablePages)
}
