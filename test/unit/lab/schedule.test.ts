import {deployLength, type LabAction, planSchedule} from '../../../src/lab/schedule'

const brief = (actions: LabAction[]) => actions.map((a) => {
  switch (a.kind) {
    case 'pod-start': return `${a.at} start ${a.build}/${a.slot}${a.routed ? '' : ' (unrouted)'}`
    case 'pod-stop': return `${a.at} stop ${a.build}/${a.slot}`
    case 'deploy-start': return `${a.at} deploy ${a.deploy}: ${a.from}->${a.to}`
    case 'switch': return `${a.at} switch to ${a.to}`
    case 'deploy-end': return `${a.at} deploy ${a.deploy} ends`
    case 'end': return `${a.at} end`
  }
})

describe('the lab\'s timetable', () => {
  it('rolls one pod per step, the new one first, and ends replicas x step after it started', () => {
    expect(brief(planSchedule({replicas: 3, stepMs: 1000, deploys: 1, everyMs: 2000, tailMs: 500, strategy: 'rolling', once: true}))).toEqual([
      '0 start 0/0', '0 start 0/1', '0 start 0/2',
      '2000 deploy 0: 0->1', '2000 start 1/0',
      '3000 start 1/1', '3000 stop 0/0',
      '4000 start 1/2', '4000 stop 0/1',
      '5000 stop 0/2', '5000 deploy 0 ends',
      '5500 end',
    ])
  })

  it('blue/green: every new pod first, one switch, then the old pods stop', () => {
    expect(brief(planSchedule({replicas: 2, stepMs: 1000, deploys: 1, everyMs: 500, tailMs: 0, strategy: 'blue-green', once: false}))).toEqual([
      '0 start 0/0', '0 start 0/1',
      '500 deploy 0: 0->1', '500 start 1/0 (unrouted)', '500 start 1/1 (unrouted)',
      '1500 switch to 1',
      '2500 stop 0/0', '2500 stop 0/1', '2500 deploy 0 ends',
    ])
  })

  it('leaves --every of calm between consecutive deploys', () => {
    const starts = planSchedule({replicas: 2, stepMs: 1000, deploys: 3, everyMs: 4000, tailMs: 1000, strategy: 'rolling', once: true})
      .filter((a) => a.kind === 'deploy-start' || a.kind === 'deploy-end' || a.kind === 'end').map((a) => `${a.kind}@${a.at}`)
    expect(starts).toEqual(['deploy-start@4000', 'deploy-end@6000', 'deploy-start@10000', 'deploy-end@12000', 'deploy-start@16000', 'deploy-end@18000', 'end@19000'])
    expect(deployLength({replicas: 4, stepMs: 30_000, strategy: 'rolling'})).toBe(120_000)
    expect(deployLength({replicas: 4, stepMs: 30_000, strategy: 'blue-green'})).toBe(60_000)
  })

  it('without deploys, --once ends after the calm and the tail', () => {
    expect(brief(planSchedule({replicas: 1, stepMs: 1000, deploys: 0, everyMs: 300, tailMs: 200, strategy: 'rolling', once: true}))).toEqual(['0 start 0/0', '500 end'])
  })
})
