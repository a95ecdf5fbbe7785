# adopt.sed rewrites an end-to-end test file written for internal/cli's old
# helpers (package cli_test) to internal/e2etest's, after
#   git mv internal/cli/x_e2e_test.go e2e/<face>/what_it_checks_test.go
# Use: sed -i -f internal/e2etest/adopt.sed FILE; then set the package
# clause (package <face>_test), run goimports, and turn methods the file
# defines on env or term into functions taking *e2etest.Env/*e2etest.Term
# (go vet names what is left). See the package doc.
s/^package cli_test$/package FACE_test/
s/\bnewEnv(/e2etest.New(/g
s/\*env\b/*e2etest.Env/g
s/\bcastorBinary(/e2etest.Binary(/g
s/\brunCastor(/e2etest.RunCastor(/g
s/\bmustJSON(/e2etest.MustJSON(/g
s/\bhelperMCPServer(/e2etest.HelperMCPServer(/g
s/\.srv\b/.Srv/g
s/\.ws\b/.WS/g
s/\.home\b/.Home/g
s/\.tuiEnv\b/.TUIEnv/g
s/\be\.t\b/e.T/g
s/\.code\b/.Code/g
s/\.stdout\b/.Stdout/g
s/\.stderr\b/.Stderr/g
s/\.run(/.Run(/g
s/\.environ()/.Environ()/g
s/\.write(/.Write(/g
s/\.sessionFile()/.SessionFile()/g
s/\.sessionFiles()/.SessionFiles()/g
s/\.runWithStdin(/.RunWithStdin(/g
s/\.runExtraEnv(/.RunExtraEnv(/g
s/\.writeUserSettings(/.WriteUserSettings(/g
s/\.startStream(/.StartStream(/g
s/\.startTUI(/.StartTUI(/g
s/\.startTUIAfter(/.StartTUIAfter(/g
s/\btm\.keys(/tm.Keys(/g
s/\btm\.typeText(/tm.TypeText(/g
s/\btm\.submit(/tm.Submit(/g
s/\btm\.screen()/tm.Screen()/g
s/\btm\.waitUntil(/tm.WaitUntil(/g
s/\btm\.poll(/tm.Poll(/g
s/\btm\.waitFor(/tm.WaitFor(/g
s/\btm\.golden(/tm.Golden(/g
s/\btm\.tmux(/tm.Tmux(/g
s/\btm\.normalise(/tm.Normalise(/g
s/\bp\.send(/p.Send(/g
s/\bp\.until(/p.Until(/g
s/\bp\.close()/p.Close()/g
s/\bp\.count(/p.Count(/g
s/\bp\.all\b/p.All/g
s/\bp\.cmd\b/p.Cmd/g
s/\bidle(/e2etest.Idle(/g
s/\bstartingStatus\b/e2etest.StartingStatus/g
s/\bpollEvery\b/e2etest.PollEvery/g
s/\bhangLimit\b/e2etest.HangLimit/g
s/\*streamProc\b/*e2etest.Stream/g
s/\*term\b/*e2etest.Term/g
s/\be\.launchTUI(/e.LaunchTUI(/g
s/\bfunctionResponse(/e2etest.FunctionResponse(/g
s/\breadme\b/e2etest.Readme/g
s/\bwriteFiles(/e2etest.WriteFiles(/g
s/\bcontentsText(/e2etest.ContentsText(/g
s/\blastUserText(/e2etest.LastUserText(/g
s/\bwriteAt(/e2etest.WriteAt(/g
s/\bwithReviewer(/e2etest.WithReviewer(/g
s/\bwriteUserSettings(t, /e2etest.WriteSettings(t, /g
s/\bdeclaredSet(/e2etest.DeclaredSet(/g
s/\bstartACPClient(/e2etest.StartACPClient(/g
s/\bscreenWithin\b/e2etest.ScreenWithin/g
s/exec\.Command(e2etest\.Binary(\(t\|e\.T\)), /e2etest.Command(\1, /g
s/exec\.Command(e2etest\.Binary(\(t\|e\.T\)))/e2etest.Command(\1)/g
s/) result {$/) e2etest.Result {/
s/\breadPids(/e2etest.ReadPids(/g
s/\bwaitExited(/e2etest.WaitExited(/g
s/\b\([a-z]\w*\)\.startA2A(/startA2A(\1, /g
s/\b\([a-z]\w*\)\.assertTurnKept(/assertTurnKept(\1, /g
s/\b\([a-z]\w*\)\.useAsker(/useAsker(\1, /g
s/\b\([a-z]\w*\)\.enablePermanentApproval()/enablePermanentApproval(\1)/g
s/\b\([a-z]\w*\)\.autoSaved()/autoSaved(\1)/g
s/\b\([a-z]\w*\)\.runsSavedCommandUnasked(/runsSavedCommandUnasked(\1, /g
